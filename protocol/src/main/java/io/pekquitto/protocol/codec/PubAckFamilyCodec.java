package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.DataRepresentation.checkFlags;
import static io.pekquitto.protocol.codec.DataRepresentation.readPacketId;
import static io.pekquitto.protocol.codec.DataRepresentation.readReasonCode;
import static io.pekquitto.protocol.codec.DataRepresentation.writeByte;
import static io.pekquitto.protocol.codec.DataRepresentation.writeFixedHeader;
import static io.pekquitto.protocol.codec.DataRepresentation.writeTwoByteInteger;

import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PacketType;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId.Scope;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.PubAck;
import io.pekquitto.protocol.PubComp;
import io.pekquitto.protocol.PubRec;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.ReasonCode;
import java.nio.ByteBuffer;

/**
 * PUBACK, PUBREC, PUBREL and PUBCOMP (3.4 to 3.7): one codec, since the four have the same shape and
 * differ only in their type, PUBREL's flags and the reason codes each allows. A packet identifier, then
 * in 5.0 a reason code and properties, both of which may be left out: remaining length 2 means SUCCESS
 * without properties, 3 a reason without properties (3.4.2.1). In 3.1.1 the remaining length is 2.
 */
final class PubAckFamilyCodec {
    /** PUBACK, PUBREC, PUBCOMP: 3.4.1, 3.5.1, 3.7.1. */
    static final int FLAGS = 0b0000;
    /** PUBREL: 3.6.1 ([MQTT-3.6.1-1]). */
    static final int PUBREL_FLAGS = 0b0010;
    /** The packet identifier. */
    static final int MIN_REMAINING_LENGTH = 2;

    private PubAckFamilyCodec() {}

    static int flags(PacketType type) {
        return type == PacketType.PUBREL ? PUBREL_FLAGS : FLAGS;
    }

    static Packet decode(PacketType type, int flags, ByteBuffer in, ProtocolVersion version) {
        checkFlags(flags, flags(type), type);
        int packetId = readPacketId(in);
        var reason = ReasonCode.SUCCESS;
        var properties = Properties.NONE;
        // In 3.1.1 anything after the packet identifier is left over, which the decoder rejects.
        if (version.hasProperties() && in.hasRemaining()) {
            reason = readReasonCode(in, type);
            if (in.hasRemaining()) properties = PropertiesCodec.decode(in, scope(type));
        }
        return switch (type) {
            case PUBACK -> new PubAck(packetId, reason, properties);
            case PUBREC -> new PubRec(packetId, reason, properties);
            case PUBREL -> new PubRel(packetId, reason, properties);
            case PUBCOMP -> new PubComp(packetId, reason, properties);
            default -> throw new IllegalArgumentException(type + " is not an acknowledgement of PUBLISH");
        };
    }

    private static Scope scope(PacketType type) {
        return switch (type) {
            case PUBACK -> Scope.PUBACK;
            case PUBREC -> Scope.PUBREC;
            case PUBREL -> Scope.PUBREL;
            default -> Scope.PUBCOMP;
        };
    }

    static int remainingLength(ReasonCode reason, Properties properties, ProtocolVersion version) {
        if (!version.hasProperties()) return 2;
        if (properties.isEmpty()) return reason == ReasonCode.SUCCESS ? 2 : 3;
        return 3 + PropertiesCodec.encodedSize(properties);
    }

    static void encode(PacketType type, int packetId, ReasonCode reason, Properties properties,
                       int remainingLength, ByteBuffer out) {
        writeFixedHeader(out, type.value() << 4 | flags(type), remainingLength);
        writeTwoByteInteger(out, packetId);
        if (remainingLength > 2) {
            writeByte(out, reason.value());
            if (remainingLength > 3) PropertiesCodec.encode(out, properties);
        }
    }
}
