package io.pekquitto.shards.transport.websocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.util.concurrent.PromiseNotifier;
import io.pekquitto.shards.transport.framing.Framing;
import io.pekquitto.shards.transport.framing.Refusal;

/**
 * MQTT over a WebSocket (MQTT 5 6.0), between the frames ({@link StreamingFrameDecoder}, Netty's encoder)
 * and the connection's transport, from the upgrade on. Inbound, the MQTT bytes are a binary message's,
 * one stream whatever the client's frame bounds (the decoder hands them on as they come); a text message
 * is refused [MQTT-6.0.0-1], as is a frame that breaks the protocol, each with its close status. Outbound,
 * the writes of one flush (a turn of the shard's loop) go out as one binary frame, and the transport's end
 * of the stream is a close frame.
 */
public final class MqttOverWebSocketFrames extends ChannelDuplexHandler implements Framing {
    /** Why a WebSocket that sent a text frame is closed [MQTT-6.0.0-1]. */
    public static final String TEXT_REFUSED = "a text WebSocket message (MQTT is carried in binary messages only)";

    private ChannelHandlerContext context;
    /** The writes since the last flush, sent as one binary frame at the flush; null if none. */
    private ByteBuf held;
    /** The promise of a write that waits for the held frame (an empty write: when the socket took it); null if none. */
    private ChannelPromise heldPromise;
    /** What the closing frame says: a normal closure, unless something the client sent was refused. */
    private WebSocketCloseStatus closeStatus = WebSocketCloseStatus.NORMAL_CLOSURE;
    private boolean refused;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        context = ctx;
        ctx.fireUserEventTriggered(this);  // the transport's writes are framed from now on
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (held != null) held.release();
        held = null;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        if (message instanceof TextWebSocketFrame text) {
            text.release();
            refuse(ctx, WebSocketCloseStatus.NORMAL_CLOSURE, TEXT_REFUSED);
        } else {
            ctx.fireChannelRead(message);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable failure) {
        if (failure instanceof CorruptedWebSocketFrameException bad) {
            refuse(ctx, new WebSocketCloseStatus(bad.closeStatus().code(), bad.getMessage()), "WebSocket: " + bad.getMessage());
        } else {
            ctx.fireExceptionCaught(failure);
        }
    }

    /** The transport closes as the connection would, after what it wrote, with a close frame of {@code status}. */
    private void refuse(ChannelHandlerContext ctx, WebSocketCloseStatus status, String why) {
        if (refused) return;
        refused = true;
        closeStatus = status;
        ctx.fireUserEventTriggered(new Refusal(why));
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object message, ChannelPromise promise) {
        if (!(message instanceof ByteBuf bytes)) {
            ctx.write(message, promise);
            return;
        }
        if (!bytes.isReadable()) {
            bytes.release();
        } else if (held == null) {
            held = bytes;
        } else {
            var frame = held instanceof CompositeByteBuf composite ? composite
                    : ctx.alloc().compositeBuffer(Integer.MAX_VALUE).addComponent(true, held);
            held = frame.addComponent(true, bytes);
        }
        if (promise.isVoid()) return;
        if (heldPromise == null) heldPromise = promise;
        else heldPromise.addListener(new PromiseNotifier<>(promise));
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        writeHeld(ctx);
        ctx.flush();
    }

    private void writeHeld(ChannelHandlerContext ctx) {
        var promise = heldPromise != null ? heldPromise : ctx.voidPromise();
        heldPromise = null;
        if (held != null) {
            ctx.write(new BinaryWebSocketFrame(held), promise);
            held = null;
        } else if (!promise.isVoid()) {
            ctx.write(Unpooled.EMPTY_BUFFER, promise);
        }
    }

    @Override
    public ChannelFuture end() {
        writeHeld(context);
        return context.writeAndFlush(new CloseWebSocketFrame(closeStatus));
    }
}
