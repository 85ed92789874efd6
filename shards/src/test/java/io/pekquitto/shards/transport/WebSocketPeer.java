package io.pekquitto.shards.transport;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The client's side of a WebSocket over a plain socket, written out byte by byte so that a test frames
 * MQTT as it likes (a packet over several frames, fragments, text) and sees the server's frames and HTTP
 * answers as they are: the handshake of RFC 6455 4.1, masked frames out, unmasked frames in.
 */
final class WebSocketPeer {
    static final int CONTINUATION = 0x0;
    static final int TEXT = 0x1;
    static final int BINARY = 0x2;
    static final int CLOSE = 0x8;

    /** A frame from the server: its opcode and payload. */
    record Frame(int opcode, byte[] payload) {
        /** A close frame's status code. */
        int closeCode() {
            return ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF);
        }
    }

    private final OutputStream out;
    private final DataInputStream in;

    WebSocketPeer(Socket socket) throws IOException {
        this.out = socket.getOutputStream();
        this.in = new DataInputStream(socket.getInputStream());
    }

    /** Sends a GET of {@code path} with {@code extraHeaders} (each ending in CRLF) and reads the answer's head. */
    String request(String path, String extraHeaders) throws IOException {
        out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extraHeaders + "\r\n").getBytes(US_ASCII));
        out.flush();
        return head();
    }

    /** An upgrade request for {@code path}, asking for {@code subprotocols} (none if null); the answer's head. */
    String upgrade(String path, String subprotocols) throws IOException {
        return request(path, "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                + "Sec-WebSocket-Version: 13\r\n" + (subprotocols == null ? "" : "Sec-WebSocket-Protocol: " + subprotocols + "\r\n"));
    }

    /** The status line and headers of the next HTTP answer. */
    String head() throws IOException {
        var head = new ByteArrayOutputStream();
        while (!head.toString(US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) throw new IOException("closed within the head: " + head.toString(US_ASCII));
            head.write(b);
        }
        return head.toString(US_ASCII);
    }

    /** The body of {@code length} bytes after a head. */
    byte[] body(int length) throws IOException {
        return in.readNBytes(length);
    }

    void send(int opcode, boolean fin, byte[] payload) throws IOException {
        var frame = new ByteArrayOutputStream();
        frame.write((fin ? 0x80 : 0) | opcode);
        if (payload.length < 126) {
            frame.write(0x80 | payload.length);
        } else {
            frame.write(0x80 | 126);
            frame.write(payload.length >> 8);
            frame.write(payload.length);
        }
        var mask = new byte[4];
        ThreadLocalRandom.current().nextBytes(mask);
        frame.write(mask);
        for (int i = 0; i < payload.length; i++) frame.write(payload[i] ^ mask[i % 4]);
        out.write(frame.toByteArray());
        out.flush();
    }

    void sendBinary(byte[] payload) throws IOException {
        send(BINARY, true, payload);
    }

    /** A frame header that announces {@code length} bytes (126 to 65,535), and no payload. */
    void announce(int length) throws IOException {
        out.write(new byte[] {(byte) (0x80 | BINARY), (byte) (0x80 | 126), (byte) (length >> 8), (byte) length, 0, 0, 0, 0});
        out.flush();
    }

    Frame next() throws IOException {
        int first = in.readUnsignedByte();
        int second = in.readUnsignedByte();
        long length = second & 0x7F;
        if (length == 126) length = in.readUnsignedShort();
        else if (length == 127) length = in.readLong();
        if ((second & 0x80) != 0) throw new IOException("a server's frame is never masked");
        return new Frame(first & 0x0F, in.readNBytes((int) length));
    }

    InputStream input() {
        return in;
    }
}
