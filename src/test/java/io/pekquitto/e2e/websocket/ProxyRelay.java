package io.pekquitto.e2e.websocket;

import io.pekquitto.e2e.SocketPipe;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A load balancer in miniature, as HAProxy with {@code send-proxy}: accepts connections on a port of
 * its own, opens one to the broker for each, writes a PROXY header there first, then copies bytes both
 * ways until either side closes. Daemon threads; {@link #close} stops it and every connection it holds.
 */
final class ProxyRelay implements AutoCloseable {
    private final ServerSocket server;

    ProxyRelay(int brokerPort, byte[] header) throws IOException {
        server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        var accepting = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    var client = server.accept();
                    var broker = new Socket();
                    broker.connect(new InetSocketAddress("127.0.0.1", brokerPort), 5_000);
                    broker.getOutputStream().write(header);
                    SocketPipe.start(client, broker, () -> {}, "proxy-relay-pump");
                    SocketPipe.start(broker, client, () -> {}, "proxy-relay-pump");
                } catch (IOException e) {
                    return;  // closed
                }
            }
        }, "proxy-relay");
        accepting.setDaemon(true);
        accepting.start();
    }

    int port() {
        return server.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
