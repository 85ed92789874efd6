package io.pekquitto.e2e.websocket;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;

/**
 * A WebSocket client written out byte by byte, for what no WebSocket library sends: a frame header that
 * announces more bytes than follow it. Its frames carry a mask of zeros, so the bytes after a header go as
 * they are. It reads the server's frames, keeping binary payloads (the MQTT bytes) until the server closes.
 */
final class RawWebSocket implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;

    private RawWebSocket(Socket socket) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.in = new DataInputStream(socket.getInputStream());
    }

    /** Connects to {@code port} and upgrades {@code /mqtt} with the subprotocol mqtt; fails unless the answer is 101. */
    static RawWebSocket upgraded(int port) throws IOException {
        var client = new RawWebSocket(new Socket("127.0.0.1", port));
        client.socket.setSoTimeout(10_000);
        client.out.write(("GET /mqtt HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: mqtt\r\n\r\n")
                .getBytes(US_ASCII));
        var head = new ByteArrayOutputStream();
        while (!head.toString(US_ASCII).endsWith("\r\n\r\n")) head.write(client.in.readUnsignedByte());
        if (!head.toString(US_ASCII).startsWith("HTTP/1.1 101 ")) throw new IOException("no upgrade: " + head.toString(US_ASCII));
        return client;
    }

    /** The header of a binary frame announcing {@code length} bytes (126 or more), with its mask: none of its payload. */
    void announce(long length) throws IOException {
        int lengthBytes = length < 65_536 ? 2 : 8;  // the shortest form, as RFC 6455 5.2 requires
        var header = new byte[2 + lengthBytes + 4];
        header[0] = (byte) 0x82;
        header[1] = (byte) (0x80 | (lengthBytes == 2 ? 126 : 127));
        for (int i = 0; i < lengthBytes; i++) header[2 + i] = (byte) (length >> (8 * (lengthBytes - 1 - i)));
        out.write(header);  // the last four: the mask, zeros
        out.flush();
    }

    /** Payload bytes of the frame under way. */
    void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Fails if the server sends anything or closes within {@code window}. */
    void expectSilence(Duration window) throws IOException {
        socket.setSoTimeout((int) window.toMillis());
        try {
            int read = in.read();
            throw new AssertionError(read < 0 ? "closed" : "sent " + read);
        } catch (SocketTimeoutException quiet) {
            socket.setSoTimeout(10_000);
        }
    }

    /** The payload of the server's next frame, which must be binary. */
    byte[] nextBinary() throws IOException {
        int first = in.readUnsignedByte();
        if (first != 0x82) throw new IOException("not a whole binary frame: " + Integer.toHexString(first));
        return in.readNBytes((int) payloadLength());
    }

    private long payloadLength() throws IOException {
        long length = in.readUnsignedByte() & 0x7F;
        if (length == 126) return in.readUnsignedShort();
        return length == 127 ? in.readLong() : length;
    }

    /** The binary payloads the server sends until it closes the socket (a close frame, then the end of the stream). */
    byte[] readUntilClosed() throws IOException {
        var received = new ByteArrayOutputStream();
        try {
            while (true) {
                int first = in.readUnsignedByte();
                var payload = in.readNBytes((int) payloadLength());
                if ((first & 0x0F) == 0x2 || (first & 0x0F) == 0x0) received.writeBytes(payload);
            }
        } catch (EOFException | SocketException closed) {
            return received.toByteArray();
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
