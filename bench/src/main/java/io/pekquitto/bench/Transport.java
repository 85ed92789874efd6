package io.pekquitto.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLContext;

/**
 * How every connection of a run reaches the broker: TLS or not (--tls, the client context), WebSocket
 * frames or not (--websocket, the HTTP path). The layers stack: WebSocket over TLS is wss.
 */
record Transport(SSLContext tls, String webSocketPath) {

    static final Transport TCP = new Transport(null, null);

    /** The link a new socket's connection talks through; buffer sizes are the connection's own. */
    Link link(SocketChannel channel, InetSocketAddress broker, int readBuffer, int writeBuffer) throws IOException {
        Link link = tls == null ? new SocketLink(channel) : new TlsLink(tls, broker, channel);
        return webSocketPath == null ? link : new WebSocketLink(link, broker, webSocketPath, readBuffer, writeBuffer);
    }

    /** tcp, tls, ws or wss: as brokers name their listeners. */
    String name() {
        if (webSocketPath == null) return tls == null ? "tcp" : "tls";
        return tls == null ? "ws" : "wss";
    }
}
