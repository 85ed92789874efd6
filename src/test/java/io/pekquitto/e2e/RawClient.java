package io.pekquitto.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PushbackInputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An MQTT client over a plain socket, written from the specification alone: it never touches the
 * broker's own codec, so a test that passes through it checks the broker against the standard and
 * not against itself. Packets are byte arrays built field by field (MQTT 3.1.1 section 2 and 3, MQTT
 * 5.0 section 2 and 3); the reader takes one whole packet (fixed header, remaining length, body) at a
 * time, and every read has a deadline.
 */
public final class RawClient implements AutoCloseable {

    /** How long a read waits when a test does not say. */
    public static final Duration TIMEOUT = Duration.ofSeconds(5);

    /** Protocol Level byte of CONNECT (3.1.2.2): 4 is MQTT 3.1.1, 5 is MQTT 5.0. */
    public static final int V311 = 4;
    public static final int V5 = 5;

    // Control packet types (2.1.2), the high nibble of the first byte.
    public static final int CONNECT = 1;
    public static final int CONNACK = 2;
    public static final int PUBLISH = 3;
    public static final int PUBACK = 4;
    public static final int PUBREC = 5;
    public static final int PUBREL = 6;
    public static final int PUBCOMP = 7;
    public static final int SUBSCRIBE = 8;
    public static final int SUBACK = 9;
    public static final int UNSUBSCRIBE = 10;
    public static final int UNSUBACK = 11;
    public static final int PINGREQ = 12;
    public static final int PINGRESP = 13;
    public static final int DISCONNECT = 14;
    public static final int AUTH = 15;

    private static final String[] TYPE_NAMES = {"RESERVED", "CONNECT", "CONNACK", "PUBLISH", "PUBACK", "PUBREC",
            "PUBREL", "PUBCOMP", "SUBSCRIBE", "SUBACK", "UNSUBSCRIBE", "UNSUBACK", "PINGREQ", "PINGRESP",
            "DISCONNECT", "AUTH"};

    private final Socket socket;
    private final PushbackInputStream in;
    private final OutputStream out;

    private RawClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new PushbackInputStream(socket.getInputStream(), 1);
        this.out = socket.getOutputStream();
    }

    /** Opens a TCP connection; nothing is sent yet. */
    public static RawClient open(int port) throws IOException {
        var socket = new Socket("127.0.0.1", port);
        socket.setTcpNoDelay(true);
        return new RawClient(socket);
    }

    /**
     * Opens a TCP connection with a receive buffer of about {@code receiveBufferSize} bytes (set before
     * the connection is made, so the TCP window is small from the start): a client that stops reading
     * soon has the server's writes backing up. Nothing is sent yet.
     */
    public static RawClient open(int port, int receiveBufferSize) throws IOException {
        var socket = new Socket();
        socket.setReceiveBufferSize(receiveBufferSize);
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress("127.0.0.1", port), (int) TIMEOUT.toMillis());
        return new RawClient(socket);
    }

    /**
     * A client over a socket the test made itself: one that sent something first (a PROXY protocol
     * header) or a TLS socket layered over it.
     */
    public static RawClient over(Socket socket) throws IOException {
        return new RawClient(socket);
    }

    /** Opens a connection, sends the CONNECT and asserts a CONNACK with reason 0 (Success). */
    public static RawClient connected(int port, Connect connect) throws IOException {
        var client = open(port);
        client.send(connect.bytes());
        var connAck = client.expect(CONNACK);
        assertEquals(0, connAck.connAckReason(), () -> "CONNACK refused " + connect.clientId() + ": " + connAck);
        return client;
    }

    /** Writes the bytes as given (one or several packets, or a fragment); from any thread. */
    public synchronized void send(byte[]... packets) throws IOException {
        for (byte[] packet : packets) out.write(packet);
        out.flush();
    }

    /** Reads the next whole packet within {@link #TIMEOUT}. */
    public Packet read() throws IOException {
        return read(TIMEOUT);
    }

    /** Reads the next whole packet; fails the test if none arrives within the timeout or the socket closes. */
    public Packet read(Duration timeout) throws IOException {
        return readOrClosed(timeout).orElseThrow(() -> new AssertionError("connection closed while waiting for a packet"));
    }

    /**
     * The next whole packet, or empty if the server closes the connection (or resets it) first; fails
     * the test if neither happens within the timeout.
     */
    public Optional<Packet> readOrClosed(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int header;
        try {
            header = readByte(deadline, "a packet or the connection to close");
        } catch (SocketException e) {
            return Optional.empty();  // connection reset
        }
        if (header < 0) return Optional.empty();
        // Remaining Length, a Variable Byte Integer of at most four bytes (2.2.3 / 1.5.5).
        int remaining = 0;
        for (int i = 0, shift = 0; ; i++, shift += 7) {
            int b = readByte(deadline, "remaining length");
            if (b < 0) fail("connection closed inside a fixed header");
            if (i == 4) fail("the server sent a remaining length of more than four bytes");
            remaining |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) break;
        }
        byte[] body = new byte[remaining];
        for (int off = 0; off < remaining; ) {
            setTimeout(deadline, "packet body");
            int n;
            try {
                n = in.read(body, off, remaining - off);
            } catch (SocketTimeoutException e) {
                throw new AssertionError("timed out inside a " + TYPE_NAMES[(header >> 4) & 0xF] + " body");
            }
            if (n < 0) throw new EOFException("connection closed inside a packet body");
            off += n;
        }
        return Optional.of(new Packet(header, body));
    }

    /**
     * The next whole packet, or empty if none starts to arrive within {@code quiet}: for reading until
     * the server has nothing more to send. Fails the test if the connection closes.
     */
    public Optional<Packet> readUnlessQuiet(Duration quiet) throws IOException {
        socket.setSoTimeout((int) Math.max(1, quiet.toMillis()));
        int first;
        try {
            first = in.read();
        } catch (SocketTimeoutException e) {
            return Optional.empty();
        }
        if (first < 0) fail("the server closed the connection");
        in.unread(first);
        return Optional.of(read());
    }

    /** Reads the next packet and asserts its type. */
    public Packet expect(int type) throws IOException {
        return expect(type, TIMEOUT);
    }

    public Packet expect(int type, Duration timeout) throws IOException {
        var packet = read(timeout);
        if (packet.type() != type) fail("expected " + TYPE_NAMES[type] + " but got " + packet);
        return packet;
    }

    /**
     * Asserts that the server closes the connection within the timeout without sending anything more
     * (a reset counts as closed). Returns how long it took.
     */
    public Duration expectClosed(Duration timeout) throws IOException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        byte[] buffer = new byte[256];
        while (true) {
            setTimeout(deadline, "the connection to close");
            int n;
            try {
                n = in.read(buffer);
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the server did not close the connection within " + timeout);
            } catch (SocketException e) {
                return Duration.ofNanos(System.nanoTime() - start);  // connection reset: closed
            }
            if (n < 0) return Duration.ofNanos(System.nanoTime() - start);
            fail("expected the connection to close, but the server sent "
                    + HexFormat.ofDelimiter(" ").formatHex(buffer, 0, n));
        }
    }

    /** Asserts that nothing arrives and the connection stays open for the whole window. */
    public void expectSilence(Duration window) throws IOException {
        socket.setSoTimeout((int) Math.max(1, window.toMillis()));
        int b;
        try {
            b = in.read();
        } catch (SocketTimeoutException e) {
            return;
        }
        if (b < 0) fail("the server closed the connection");
        fail("expected silence, but the server sent a packet starting " + hex(b));
    }

    /** MQTT 5: asserts a DISCONNECT with the reason code, then the connection closed. */
    public void expectDisconnect(int reasonCode, Duration timeout) throws IOException {
        var disconnect = expect(DISCONNECT, timeout);
        assertEquals(hex(reasonCode), hex(disconnect.disconnectReason()), () -> "DISCONNECT reason: " + disconnect);
        expectClosed(TIMEOUT);
    }

    /** Closes the socket without sending DISCONNECT: to the server, the network failed. */
    @Override
    public void close() throws IOException {
        socket.close();
    }

    private int readByte(long deadline, String what) throws IOException {
        setTimeout(deadline, what);
        try {
            return in.read();
        } catch (SocketTimeoutException e) {
            throw new AssertionError("timed out waiting for " + what);
        }
    }

    private void setTimeout(long deadline, String what) throws SocketException {
        long millis = Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
        if (millis == 0) throw new AssertionError("timed out waiting for " + what);
        socket.setSoTimeout((int) Math.min(millis, Integer.MAX_VALUE));
    }

    /** A reason code as the spec writes it, 0x8C. */
    public static String hex(int code) {
        return String.format("0x%02X", code);
    }

    // ---- packets read from the server

    /** One packet as read: the first byte of the fixed header and the body after the remaining length. */
    public record Packet(int header, byte[] body) {
        public int type() { return (header >> 4) & 0x0F; }

        public int flags() { return header & 0x0F; }

        /** CONNACK: Session Present, bit 0 of the Connect Acknowledge Flags (3.2.2.1). */
        public boolean sessionPresent() { return (body[0] & 0x01) != 0; }

        /** CONNACK: the Connect Return code (3.1.1) or Connect Reason Code (5.0), the second byte. */
        public int connAckReason() { return body[1] & 0xFF; }

        /** MQTT 5 CONNACK: the properties after the reason code (3.2.2.3). */
        public Map<Integer, Object> connAckProperties() { return properties(body, 2).values(); }

        /** MQTT 5 DISCONNECT: the reason code, 0x00 when the remaining length is 0 (3.14.2.1). */
        public int disconnectReason() { return body.length == 0 ? 0 : body[0] & 0xFF; }

        /** The Packet Identifier of an acknowledgement, the first two bytes of the variable header. */
        public int packetId() { return ((body[0] & 0xFF) << 8) | (body[1] & 0xFF); }

        /** SUBACK (3.9.3) or MQTT 5 UNSUBACK (3.11.3): one code per filter, after the packet id and properties. */
        public List<Integer> ackReasons(int version) {
            int at = 2;
            if (version == V5) at = properties(body, at).end();
            var codes = new ArrayList<Integer>();
            for (int i = at; i < body.length; i++) codes.add(body[i] & 0xFF);
            return codes;
        }

        /** Decodes a PUBLISH from the server (3.3). */
        public Publish publish(int version) {
            int qos = (header >> 1) & 0x03;
            int topicLength = ((body[0] & 0xFF) << 8) | (body[1] & 0xFF);
            String topic = new String(body, 2, topicLength, StandardCharsets.UTF_8);
            int at = 2 + topicLength;
            int packetId = 0;
            if (qos > 0) {
                packetId = ((body[at] & 0xFF) << 8) | (body[at + 1] & 0xFF);
                at += 2;
            }
            Map<Integer, Object> properties = Map.of();
            if (version == V5) {
                var parsed = properties(body, at);
                properties = parsed.values();
                at = parsed.end();
            }
            return new Publish(topic, qos, (header & 0x01) != 0, (header & 0x08) != 0, packetId, properties,
                    Arrays.copyOfRange(body, at, body.length));
        }

        @Override
        public String toString() {
            return TYPE_NAMES[type()] + " flags=" + Integer.toBinaryString(flags()) + " body=["
                    + HexFormat.ofDelimiter(" ").formatHex(body) + "]";
        }
    }

    /** A PUBLISH as received. Properties are keyed by identifier (2.2.2.2); empty for 3.1.1. */
    public record Publish(String topic, int qos, boolean retain, boolean dup, int packetId,
                          Map<Integer, Object> properties, byte[] payload) {
        public String payloadText() { return new String(payload, StandardCharsets.UTF_8); }
    }

    private record ParsedProperties(Map<Integer, Object> values, int end) {}

    /**
     * Reads an MQTT 5 property block (2.2.2): a Variable Byte Integer length, then identifier and value
     * pairs typed as in Table 2-4. User Properties (0x26) collect into a list of two-element arrays.
     */
    private static ParsedProperties properties(byte[] body, int at) {
        int[] cursor = {at};
        int length = readVarInt(body, cursor);
        int end = cursor[0] + length;
        var values = new LinkedHashMap<Integer, Object>();
        var userProperties = new ArrayList<String[]>();
        while (cursor[0] < end) {
            int id = readVarInt(body, cursor);
            Object value = switch (id) {
                case 0x01, 0x17, 0x19, 0x24, 0x25, 0x28, 0x29, 0x2A -> body[cursor[0]++] & 0xFF;  // Byte
                case 0x13, 0x21, 0x22, 0x23 -> readUnsigned(body, cursor, 2);                     // Two Byte Integer
                case 0x02, 0x11, 0x18, 0x27 -> readUnsigned(body, cursor, 4);                     // Four Byte Integer
                case 0x0B -> readVarInt(body, cursor);                                            // Variable Byte Integer
                case 0x03, 0x08, 0x12, 0x15, 0x1A, 0x1C, 0x1F -> readString(body, cursor);         // UTF-8 string
                case 0x09, 0x16 -> readBinary(body, cursor);                                      // Binary Data
                case 0x26 -> {                                                                     // UTF-8 String Pair
                    userProperties.add(new String[] {readString(body, cursor), readString(body, cursor)});
                    yield userProperties;
                }
                default -> throw new AssertionError("unknown property identifier " + hex(id));
            };
            values.put(id, value);
        }
        return new ParsedProperties(values, end);
    }

    private static int readVarInt(byte[] body, int[] cursor) {
        int value = 0;
        for (int shift = 0; ; shift += 7) {
            int b = body[cursor[0]++] & 0xFF;
            value |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) return value;
        }
    }

    private static long readUnsigned(byte[] body, int[] cursor, int bytes) {
        long value = 0;
        for (int i = 0; i < bytes; i++) value = (value << 8) | (body[cursor[0]++] & 0xFF);
        return value;
    }

    private static String readString(byte[] body, int[] cursor) {
        byte[] bytes = readBinary(body, cursor);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] readBinary(byte[] body, int[] cursor) {
        int length = (int) readUnsigned(body, cursor, 2);
        byte[] bytes = Arrays.copyOfRange(body, cursor[0], cursor[0] + length);
        cursor[0] += length;
        return bytes;
    }

    // ---- packets sent to the server

    /**
     * A Will Message for {@link Connect} (3.1.2.5 - 3.1.2.7, 3.1.3.2 - 3.1.3.4). {@code properties} is the
     * MQTT 5 Will Properties block content (3.1.3.2); ignored for 3.1.1.
     */
    public record Will(String topic, byte[] payload, int qos, boolean retain, byte[] properties) {
        public Will(String topic, byte[] payload, int qos, boolean retain) {
            this(topic, payload, qos, retain, new byte[0]);
        }
    }

    /**
     * A CONNECT (3.1) in either version. {@code properties} is the MQTT 5 property block content
     * (without its length), built with {@link Bytes}; it is ignored for 3.1.1.
     */
    public record Connect(int version, String clientId, boolean cleanStart, int keepAlive, byte[] properties,
                          Optional<Will> will) {

        /** Clean Start 1, Keep Alive 60 s, no properties, no will. */
        public static Connect of(int version, String clientId) {
            return new Connect(version, clientId, true, 60, new byte[0], Optional.empty());
        }

        public Connect withCleanStart(boolean newCleanStart) {
            return new Connect(version, clientId, newCleanStart, keepAlive, properties, will);
        }

        public Connect withKeepAlive(int seconds) {
            return new Connect(version, clientId, cleanStart, seconds, properties, will);
        }

        public Connect withProperties(byte[] newProperties) {
            return new Connect(version, clientId, cleanStart, keepAlive, newProperties, will);
        }

        public Connect withWill(Will newWill) {
            return new Connect(version, clientId, cleanStart, keepAlive, properties, Optional.of(newWill));
        }

        public byte[] bytes() {
            int flags = (cleanStart ? 0x02 : 0);                       // bit 1 Clean Session / Clean Start
            if (will.isPresent()) {
                flags |= 0x04                                           // bit 2 Will Flag
                        | will.get().qos() << 3                         // bits 4-3 Will QoS
                        | (will.get().retain() ? 0x20 : 0);             // bit 5 Will Retain
            }
            var variable = new Bytes()
                    .string("MQTT")                                     // Protocol Name
                    .u8(version)                                        // Protocol Level: 4 or 5
                    .u8(flags)                                          // Connect Flags, bit 0 reserved 0
                    .u16(keepAlive);                                    // Keep Alive, seconds
            if (version == V5) variable.properties(properties);         // CONNECT Properties
            variable.string(clientId);                                  // Payload: Client Identifier
            if (will.isPresent()) {
                if (version == V5) variable.properties(will.get().properties());  // Will Properties
                variable.string(will.get().topic())                     // Will Topic
                        .binary(will.get().payload());                  // Will Payload
            }
            return packet(CONNECT << 4, variable.toByteArray());
        }
    }

    /** PUBLISH (3.3). {@code properties} is the MQTT 5 property block content; ignored for 3.1.1. */
    public static byte[] publish(int version, String topic, int qos, boolean retain, int packetId,
                                 byte[] properties, byte[] payload) {
        var body = new Bytes().string(topic);                           // Topic Name
        if (qos > 0) body.u16(packetId);                                // Packet Identifier, QoS 1 and 2 only
        if (version == V5) body.properties(properties);                 // PUBLISH Properties
        body.raw(payload);                                              // Payload, to the end of the packet
        int header = PUBLISH << 4 | qos << 1 | (retain ? 1 : 0);        // DUP 0, QoS, RETAIN
        return packet(header, body.toByteArray());
    }

    public static byte[] publish(int version, String topic, int qos, int packetId, String payload) {
        return publish(version, topic, qos, false, packetId, new byte[0], payload.getBytes(StandardCharsets.UTF_8));
    }

    /** PUBACK, PUBREC, PUBREL or PUBCOMP with just a Packet Identifier (reason 0x00 implied in 5.0). */
    public static byte[] ack(int type, int packetId) {
        int flags = type == PUBREL ? 0b0010 : 0;                        // PUBREL's reserved flags are 0010
        return packet(type << 4 | flags, new Bytes().u16(packetId).toByteArray());
    }

    /** One Topic Filter with its requested QoS (3.1.1) or Subscription Options byte (5.0, 3.8.3.1). */
    public record Filter(String topicFilter, int options) {}

    /** SUBSCRIBE (3.8): fixed header flags 0010. */
    public static byte[] subscribe(int version, int packetId, Filter... filters) {
        var body = new Bytes().u16(packetId);                           // Packet Identifier
        if (version == V5) body.properties(new byte[0]);                // SUBSCRIBE Properties: none
        for (var filter : filters) {
            body.string(filter.topicFilter())                           // Topic Filter
                    .u8(filter.options());                              // Requested QoS / Subscription Options
        }
        return packet(SUBSCRIBE << 4 | 0b0010, body.toByteArray());
    }

    /** UNSUBSCRIBE (3.10): fixed header flags 0010. */
    public static byte[] unsubscribe(int version, int packetId, String... topicFilters) {
        var body = new Bytes().u16(packetId);                           // Packet Identifier
        if (version == V5) body.properties(new byte[0]);                // UNSUBSCRIBE Properties: none
        for (String filter : topicFilters) body.string(filter);        // Topic Filters
        return packet(UNSUBSCRIBE << 4 | 0b0010, body.toByteArray());
    }

    /** PINGREQ (3.12): a fixed header only. */
    public static byte[] pingReq() {
        return new byte[] {(byte) 0xC0, 0x00};
    }

    /** DISCONNECT (3.14). In 5.0 with a reason code and an empty property block. */
    public static byte[] disconnect(int version, int reasonCode) {
        if (version == V311) return new byte[] {(byte) 0xE0, 0x00};
        return new byte[] {(byte) 0xE0, 0x02, (byte) reasonCode, 0x00};
    }

    /** A fixed header (first byte, Remaining Length as a Variable Byte Integer) followed by the body. */
    public static byte[] packet(int firstByte, byte[] body) {
        return new Bytes().u8(firstByte).varInt(body.length).raw(body).toByteArray();
    }

    /** Builds byte arrays from the data representations of section 1.5 of both standards. */
    public static final class Bytes {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        /** One byte. */
        public Bytes u8(int value) {
            out.write(value);
            return this;
        }

        /** Two Byte Integer, big-endian (1.5.2). */
        public Bytes u16(int value) {
            out.write(value >> 8);
            out.write(value);
            return this;
        }

        /** Four Byte Integer, big-endian (1.5.3, 5.0). */
        public Bytes u32(long value) {
            for (int shift = 24; shift >= 0; shift -= 8) out.write((int) (value >> shift));
            return this;
        }

        /** Variable Byte Integer: 7 bits a byte, least significant first, high bit = more (1.5.5, 5.0). */
        public Bytes varInt(int value) {
            do {
                int b = value % 128;
                value /= 128;
                out.write(value > 0 ? b | 0x80 : b);
            } while (value > 0);
            return this;
        }

        /** UTF-8 Encoded String: a two-byte length, then the bytes (1.5.4 / 1.5.3). */
        public Bytes string(String value) {
            return binary(value.getBytes(StandardCharsets.UTF_8));
        }

        /** Binary Data: a two-byte length, then the bytes (1.5.6, 5.0). */
        public Bytes binary(byte[] value) {
            u16(value.length);
            return raw(value);
        }

        /** An MQTT 5 property block: Variable Byte Integer length, then the given content (2.2.2). */
        public Bytes properties(byte[] content) {
            varInt(content.length);
            return raw(content);
        }

        /** Bytes as given. */
        public Bytes raw(byte... bytes) {
            out.writeBytes(bytes);
            return this;
        }

        public byte[] toByteArray() {
            return out.toByteArray();
        }
    }
}
