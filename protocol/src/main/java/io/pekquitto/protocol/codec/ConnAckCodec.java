package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.DataRepresentation.checkFlags;
import static io.pekquitto.protocol.codec.DataRepresentation.checkRemainingLength;
import static io.pekquitto.protocol.codec.DataRepresentation.readByte;
import static io.pekquitto.protocol.codec.DataRepresentation.readReasonCode;
import static io.pekquitto.protocol.codec.DataRepresentation.writeByte;
import static io.pekquitto.protocol.codec.DataRepresentation.writeFixedHeader;

import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.PacketType;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId.Scope;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.ReasonCode;
import java.nio.ByteBuffer;

/**
 * CONNACK (3.2): acknowledge flags, then a reason code (5.0) or return code (3.1.1, 3.2.2.3), then
 * properties in 5.0. The broker thinks in 5.0 codes; 3.1.1 return codes are derived with
 * {@link ReasonCode#connAckReturnCodeV3()} and decoded with {@link ReasonCode#fromConnAckReturnCodeV3}.
 * 3.1 is treated as 3.1.1 (its first byte was reserved, and the broker decides what to put in it).
 */
final class ConnAckCodec {
    static final int FLAGS = 0b0000;
    /** Acknowledge flags and the reason code. */
    static final int MIN_REMAINING_LENGTH = 2;
    private static final int SESSION_PRESENT = 0x01;

    private ConnAckCodec() {}

    static ConnAck decode(int flags, ByteBuffer in, ProtocolVersion version) {
        checkFlags(flags, FLAGS, PacketType.CONNACK);
        checkRemainingLength(in, MIN_REMAINING_LENGTH, PacketType.CONNACK);
        int acknowledgeFlags = readByte(in, "acknowledge flags");
        if ((acknowledgeFlags & ~SESSION_PRESENT) != 0) {
            // [MQTT-3.2.2-1] in 5.0, 3.2.2.1 in 3.1.1
            throw new MalformedPacketException("reserved acknowledge flags set [MQTT-3.2.2-1]");
        }
        boolean sessionPresent = acknowledgeFlags == SESSION_PRESENT;
        if (!version.hasProperties()) {
            var reason = ReasonCode.fromConnAckReturnCodeV3(readByte(in, "return code"));
            return new ConnAck(sessionPresent, reason, Properties.NONE);
        }
        var reason = readReasonCode(in, PacketType.CONNACK);
        return new ConnAck(sessionPresent, reason, PropertiesCodec.decode(in, Scope.CONNACK));
    }

    static int remainingLength(ConnAck connAck, ProtocolVersion version) {
        return 2 + (version.hasProperties() ? PropertiesCodec.encodedSize(connAck.properties()) : 0);
    }

    static void encode(ConnAck connAck, ProtocolVersion version, int remainingLength, ByteBuffer out) {
        writeFixedHeader(out, PacketType.CONNACK.value() << 4 | FLAGS, remainingLength);
        writeByte(out, connAck.sessionPresent() ? SESSION_PRESENT : 0);
        if (version.hasProperties()) {
            writeByte(out, connAck.reason().value());
            PropertiesCodec.encode(out, connAck.properties());
        } else {
            writeByte(out, connAck.reason().connAckReturnCodeV3());
        }
    }
}
