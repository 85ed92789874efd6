package io.pekquitto.e2e.websocket;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
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
                    pump(client.getInputStream(), broker.getOutputStream(), client, broker);
                    pump(broker.getInputStream(), client.getOutputStream(), client, broker);
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

    private static void pump(InputStream from, OutputStream to, Socket one, Socket other) {
        var thread = new Thread(() -> {
            var buffer = new byte[8192];
            try {
                for (int read; (read = from.read(buffer)) >= 0; ) to.write(buffer, 0, read);
            } catch (IOException e) {
                // either side closed
            } finally {
                closeQuietly(one);
                closeQuietly(other);
            }
        }, "proxy-relay-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
