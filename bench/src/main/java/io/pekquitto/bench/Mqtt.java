package io.pekquitto.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The few MQTT 3.1.1 / 5.0 packets the load generator sends, encoded here rather than with the
 * broker's own codec so that the tool stays an independent client (a bug shared by both sides would
 * go unnoticed otherwise).
 */
final class Mqtt {

    static final int CONNECT = 1;
    static final int CONNACK = 2;
    static final int PUBLISH = 3;
    static final int PUBACK = 4;
    static final int PUBREC = 5;
    static final int PUBREL = 6;
    static final int PUBCOMP = 7;
    static final int SUBSCRIBE = 8;
    static final int SUBACK = 9;
    static final int UNSUBSCRIBE = 10;
    static final int UNSUBACK = 11;
    static final int PINGREQ = 12;
    static final int PINGRESP = 13;
    static final int DISCONNECT = 14;

    static final byte[] PINGREQ_PACKET = {(byte) 0xC0, 0};
    static final byte[] DISCONNECT_PACKET = {(byte) 0xE0, 0}; // v5: no reason code means 0x00 [MQTT-3.14.2.1]

    /** The largest value a Remaining Length can hold (four bytes of seven bits). */
    static final int MAX_REMAINING_LENGTH = 268_435_455;

    private Mqtt() {}

    static int type(int header) {
        return (header >>> 4) & 0x0F;
    }

    static int qos(int header) {
        return (header >>> 1) & 0x03;
    }

    /** CONNECT with a client id, no will, no credentials. */
    static byte[] connect(String clientId, int keepAliveSeconds, boolean cleanStart, boolean v5) {
        var id = utf8(clientId);
        var body = ByteBuffer.allocate(10 + (v5 ? 1 : 0) + 2 + id.length);
        body.putShort((short) 4).put(new byte[] {'M', 'Q', 'T', 'T'}); // protocol name
        body.put((byte) (v5 ? 5 : 4));                                  // protocol level
        body.put((byte) (cleanStart ? 0x02 : 0x00));                    // connect flags
        body.putShort((short) keepAliveSeconds);
        if (v5) body.put((byte) 0);                                     // property length
        body.putShort((short) id.length).put(id);                       // payload: client id
        return packet(CONNECT << 4, body);
    }

    /**
     * CONNECT for a session that outlives the connection: Clean Session 0 (3.1.1), or Clean Start 1 with
     * a Session Expiry Interval of one hour (5.0). Clean Start 1 in 5.0, so each run begins afresh.
     */
    static byte[] connectPersistent(String clientId, int keepAliveSeconds, boolean v5) {
        var id = utf8(clientId);
        var body = ByteBuffer.allocate(10 + (v5 ? 6 : 0) + 2 + id.length);
        body.putShort((short) 4).put(new byte[] {'M', 'Q', 'T', 'T'}); // protocol name
        body.put((byte) (v5 ? 5 : 4));                                  // protocol level
        body.put((byte) (v5 ? 0x02 : 0x00));                            // connect flags: Clean Start
        body.putShort((short) keepAliveSeconds);
        if (v5) body.put((byte) 5).put((byte) 0x11).putInt(3600);       // Session Expiry Interval 3600 s
        body.putShort((short) id.length).put(id);                       // payload: client id
        return packet(CONNECT << 4, body);
    }

    /** SUBSCRIBE to one filter at one QoS. */
    static byte[] subscribe(int packetId, String filter, int qos, boolean v5) {
        var topic = utf8(filter);
        var body = ByteBuffer.allocate(2 + (v5 ? 1 : 0) + 2 + topic.length + 1);
        body.putShort((short) packetId);
        if (v5) body.put((byte) 0);                                     // property length
        body.putShort((short) topic.length).put(topic);
        body.put((byte) qos);                                           // subscription options
        return packet(SUBSCRIBE << 4 | 0b0010, body);                   // [MQTT-3.8.1-1]
    }

    /** UNSUBSCRIBE from one filter. */
    static byte[] unsubscribe(int packetId, String filter, boolean v5) {
        var topic = utf8(filter);
        var body = ByteBuffer.allocate(2 + (v5 ? 1 : 0) + 2 + topic.length);
        body.putShort((short) packetId);
        if (v5) body.put((byte) 0);                                     // property length
        body.putShort((short) topic.length).put(topic);
        return packet(UNSUBSCRIBE << 4 | 0b0010, body);                 // [MQTT-3.10.1-1]
    }

    /** For a blocking side client: reads one whole packet and checks its type. */
    static void expect(InputStream in, int type, String who) throws IOException {
        int header = in.read();
        if (header < 0 || type(header) != type) {
            throw new IOException(who + ": expected packet type " + type + ", got header " + header);
        }
        int length = 0;
        for (int shift = 0, b = 0x80; (b & 0x80) != 0; shift += 7) {
            b = in.read();
            if (b < 0 || shift > 21) throw new IOException(who + ": bad remaining length");
            length |= (b & 0x7F) << shift;
        }
        if (in.readNBytes(length).length != length) throw new IOException(who + ": closed mid-packet");
    }

    /** A four-byte acknowledgement: PUBACK, PUBREC, PUBREL (flags 0010) or PUBCOMP. */
    static void putAck(ByteBuffer out, int type, int packetId) {
        out.put((byte) (type << 4 | (type == PUBREL ? 0b0010 : 0)));   // [MQTT-3.6.1-1]
        out.put((byte) 2);
        out.putShort((short) packetId);
    }

    /** Remaining Length bytes: seven bits per byte, least significant first. */
    static int putRemainingLength(ByteBuffer out, int length) {
        if (length < 0 || length > MAX_REMAINING_LENGTH) throw new IllegalArgumentException("length " + length);
        int bytes = 0;
        do {
            int digit = length & 0x7F;
            length >>>= 7;
            out.put((byte) (length > 0 ? digit | 0x80 : digit));
            bytes++;
        } while (length > 0);
        return bytes;
    }

    static int remainingLengthSize(int length) {
        return length < 128 ? 1 : length < 16_384 ? 2 : length < 2_097_152 ? 3 : 4;
    }

    /**
     * Where a PUBLISH body's payload starts: after the topic, the packet id (QoS > 0) and, for 5.0,
     * the properties.
     */
    static int publishPayloadOffset(ByteBuffer frame, int bodyOffset, int qos, boolean v5) {
        int p = bodyOffset + 2 + (frame.getShort(bodyOffset) & 0xFFFF);
        if (qos > 0) p += 2;
        if (v5) {
            int propertyLength = 0;
            int shift = 0;
            int b;
            do {
                b = frame.get(p++);
                propertyLength |= (b & 0x7F) << shift;
                shift += 7;
            } while ((b & 0x80) != 0 && shift < 28);
            p += propertyLength;
        }
        return p;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] packet(int header, ByteBuffer body) {
        body.flip();
        int length = body.remaining();
        var out = ByteBuffer.allocate(1 + remainingLengthSize(length) + length);
        out.put((byte) header);
        putRemainingLength(out, length);
        out.put(body);
        return out.array();
    }

    /**
     * A PUBLISH encoded once; each send copies it and patches the packet id and the payload's
     * publisher id and sequence number in place, so the hot path allocates nothing.
     *
     * <p>Payload layout: publisher id (4 bytes), sequence number (8 bytes), then zeros.
     */
    static final class PublishTemplate {
        static final int MIN_PAYLOAD = 12;

        final byte[] bytes;
        final int packetIdOffset; // -1 at QoS 0
        final int payloadOffset;

        PublishTemplate(String topic, int qos, int payloadSize, boolean v5) {
            if (payloadSize < MIN_PAYLOAD) {
                throw new IllegalArgumentException("payload must be at least " + MIN_PAYLOAD + " bytes (publisher id + sequence)");
            }
            var name = utf8(topic);
            int variableHeader = 2 + name.length + (qos > 0 ? 2 : 0) + (v5 ? 1 : 0);
            int length = variableHeader + payloadSize;
            var out = ByteBuffer.allocate(1 + remainingLengthSize(length) + length);
            out.put((byte) (PUBLISH << 4 | qos << 1));
            putRemainingLength(out, length);
            out.putShort((short) name.length).put(name);
            packetIdOffset = qos > 0 ? out.position() : -1;
            if (qos > 0) out.putShort((short) 0);
            if (v5) out.put((byte) 0); // property length
            payloadOffset = out.position();
            bytes = out.array();
        }

        int size() {
            return bytes.length;
        }

        /** Appends this PUBLISH to {@code out}, which must have {@link #size()} bytes free. */
        void writeTo(ByteBuffer out, int packetId, int publisherId, long sequence) {
            int start = out.position();
            out.put(bytes);
            if (packetIdOffset >= 0) out.putShort(start + packetIdOffset, (short) packetId);
            out.putInt(start + payloadOffset, publisherId);
            out.putLong(start + payloadOffset + 4, sequence);
        }
    }
}
