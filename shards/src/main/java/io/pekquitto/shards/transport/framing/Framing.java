package io.pekquitto.shards.transport.framing;

import io.netty.channel.ChannelFuture;

/**
 * A handler between the socket and the transport ({@code transport.ChannelTransport}) that carries the
 * connection's bytes in frames of its own (a WebSocket's binary frames, {@code websocket.MqttOverWebSocketFrames}).
 * Like TLS, it holds what is written until the flush, so that Netty's outbound buffer does not count it yet,
 * and it ends the stream with a frame of its own. It tells the transport it is there by firing itself as a user event, once its
 * frames start (a WebSocket's upgrade): before that, bytes pass as they are.
 */
public interface Framing {
    /** Writes what it holds, then the frame that ends the stream (a WebSocket's close frame), flushed: that write's future. */
    ChannelFuture end();
}
