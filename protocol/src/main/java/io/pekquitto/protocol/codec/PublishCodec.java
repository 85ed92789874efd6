package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.DataRepresentation.readPacketId;
import static io.pekquitto.protocol.codec.DataRepresentation.readRemaining;
import static io.pekquitto.protocol.codec.DataRepresentation.readString;
import static io.pekquitto.protocol.codec.DataRepresentation.shareRemaining;
import static io.pekquitto.protocol.codec.DataRepresentation.stringSize;
import static io.pekquitto.protocol.codec.DataRepresentation.writeFixedHeader;
import static io.pekquitto.protocol.codec.DataRepresentation.writeString;
import static io.pekquitto.protocol.codec.DataRepresentation.writeTwoByteInteger;

import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.PacketType;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId.Scope;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.TopicFilter;
import java.nio.ByteBuffer;

/**
 * PUBLISH (3.3): the fixed-header flags carry DUP, QoS and RETAIN (3.3.1); then the Topic Name, a
 * packet identifier for QoS 1 and 2, properties in 5.0, and the rest of the frame is the payload,
 * copied out so the packet never shares the connection's buffer; but kept in place when the frame's body
 * is the decoder's own array (joined from reads), which nothing else holds, and the payload most of it.
 *
 * <p>An empty Topic Name is allowed in 5.0 because a Topic Alias may stand for it (3.3.2.3.4); whether
 * one does is the connection's to check, as are the alias itself and the Payload Format Indicator's
 * promise of UTF-8.
 */
final class PublishCodec {
    private static final int DUP = 0b1000;
    private static final int QOS_SHIFT = 1;
    private static final int QOS_MASK = 0b0110;
    private static final int RETAIN = 0b0001;
    /** The Topic Name's length. */
    static final int MIN_REMAINING_LENGTH = 2;

    private PublishCodec() {}

    /** The flags every PUBLISH must have, knowable from its first byte. */
    static void checkFlags(int flags) {
        int qos = (flags & QOS_MASK) >> QOS_SHIFT;
        if (qos == 3) throw new MalformedPacketException("PUBLISH with QoS 3 [MQTT-3.3.1-4]");
        if ((flags & DUP) != 0 && qos == 0) throw new MalformedPacketException("PUBLISH with DUP and QoS 0 [MQTT-3.3.1-2]");
    }

    static Publish decode(int flags, ByteBuffer in, boolean owned, ProtocolVersion version) {
        checkFlags(flags);
        int qos = (flags & QOS_MASK) >> QOS_SHIFT;
        boolean dup = (flags & DUP) != 0;
        boolean retain = (flags & RETAIN) != 0;
        String topic = readString(in, "topic name");
        if (topic.isEmpty()) {
            if (!version.hasProperties()) throw new MalformedPacketException("empty topic name [MQTT-4.7.3-1]");
        } else if (TopicFilter.hasWildcard(topic)) {
            throw new MalformedPacketException(ReasonCode.TOPIC_NAME_INVALID,
                    "wildcard in topic name [MQTT-3.3.2-2]");
        }
        int packetId = qos == 0 ? 0 : readPacketId(in);
        var properties = version.hasProperties() ? PropertiesCodec.decode(in, Scope.PUBLISH) : Properties.NONE;
        // Kept in the body's array only where it is most of it: else a small payload would keep a long topic alive.
        var payload = owned && 2L * in.remaining() >= in.limit() ? shareRemaining(in) : readRemaining(in);
        return new Publish(topic, payload, QoS.of(qos), retain, dup, packetId, properties);
    }

    static int remainingLength(Publish publish, ProtocolVersion version) {
        int length = stringSize(publish.topic());
        if (publish.qos() != QoS.AT_MOST_ONCE) length += 2;
        if (version.hasProperties()) length += PropertiesCodec.encodedSize(publish.properties());
        return length + publish.payload().length();
    }

    static void encode(Publish publish, ProtocolVersion version, int remainingLength, ByteBuffer out) {
        encodeHead(publish, version, remainingLength, out);
        publish.payload().writeTo(out);
    }

    /** Everything but the payload, which the caller writes after it. */
    static void encodeHead(Publish publish, ProtocolVersion version, int remainingLength, ByteBuffer out) {
        int flags = publish.qos().value() << QOS_SHIFT | (publish.dup() ? DUP : 0) | (publish.retain() ? RETAIN : 0);
        writeFixedHeader(out, PacketType.PUBLISH.value() << 4 | flags, remainingLength);
        writeString(out, publish.topic());
        if (publish.qos() != QoS.AT_MOST_ONCE) writeTwoByteInteger(out, publish.packetId());
        if (version.hasProperties()) PropertiesCodec.encode(out, publish.properties());
    }
}
