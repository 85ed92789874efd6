package io.pekquitto.e2e.bridge;

import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.protocol.codec.PacketReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A remote broker that misbehaves on purpose, for a bridge to meet: it accepts on 127.0.0.1, reads what
 * the bridge sends with the broker's own codec and answers only what the test writes.
 */
final class FakeRemote implements AutoCloseable {
    private final ServerSocket server;

    FakeRemote() throws IOException {
        server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
    }

    int port() {
        return server.getLocalPort();
    }

    /** The next connection from the bridge, within {@code timeout}. */
    Connection accept(Duration timeout) throws IOException {
        server.setSoTimeout((int) timeout.toMillis());
        var socket = server.accept();
        return new Connection(socket);
    }

    @Override
    public void close() throws IOException {
        server.close();
    }

    static final class Connection implements AutoCloseable {
        private final Socket socket;
        private final PacketReader reader = PacketReader.forServer(1 << 20, 1 << 16);
        private final byte[] buffer = new byte[8192];

        Connection(Socket socket) {
            this.socket = socket;
        }

        /** The next packet within {@code timeout}, or null if none came (or the bridge closed). */
        Packet next(Duration timeout) throws IOException {
            long deadline = System.nanoTime() + timeout.toNanos();
            for (var packet = reader.poll(); ; packet = reader.poll()) {
                if (packet != null) return packet;
                long left = deadline - System.nanoTime();
                if (left <= 0) return null;
                socket.setSoTimeout((int) Math.max(1, left / 1_000_000));
                int read;
                try {
                    read = socket.getInputStream().read(buffer);
                } catch (SocketTimeoutException e) {
                    return null;
                }
                if (read < 0) return null;
                reader.feed(ByteBuffer.wrap(buffer.clone(), 0, read));
            }
        }

        /** Whether the bridge closed the connection within {@code timeout} (packets before the close are skipped). */
        boolean closedWithin(Duration timeout) throws IOException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                socket.setSoTimeout(100);
                try {
                    if (socket.getInputStream().read(buffer) < 0) return true;
                } catch (SocketTimeoutException e) {
                    // still open
                } catch (IOException e) {
                    return true;  // reset
                }
            }
            return false;
        }

        void send(Packet packet) throws IOException {
            var bytes = PacketEncoder.encode(packet, ProtocolVersion.MQTT_3_1_1);
            socket.getOutputStream().write(bytes.array(), bytes.position(), bytes.remaining());
            socket.getOutputStream().flush();
        }

        void sendRaw(byte... bytes) throws IOException {
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
        }

        /** Every packet within {@code window}. */
        List<Packet> within(Duration window) throws IOException {
            var packets = new ArrayList<Packet>();
            long deadline = System.nanoTime() + window.toNanos();
            for (long left = window.toNanos(); left > 0; left = deadline - System.nanoTime()) {
                var packet = next(Duration.ofNanos(left));
                if (packet == null) break;
                packets.add(packet);
            }
            return packets;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
