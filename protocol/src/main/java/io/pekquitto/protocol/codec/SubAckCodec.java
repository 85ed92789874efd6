package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.DataRepresentation.checkFlags;
import static io.pekquitto.protocol.codec.DataRepresentation.readByte;
import static io.pekquitto.protocol.codec.DataRepresentation.readPacketId;
import static io.pekquitto.protocol.codec.DataRepresentation.readReasonCode;
import static io.pekquitto.protocol.codec.DataRepresentation.writeByte;
import static io.pekquitto.protocol.codec.DataRepresentation.writeFixedHeader;
import static io.pekquitto.protocol.codec.DataRepresentation.writeTwoByteInteger;

import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.PacketType;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId.Scope;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.SubAck;
import java.nio.ByteBuffer;
import java.util.ArrayList;

/**
 * SUBACK (3.9): packet identifier, properties in 5.0, then one reason code per subscription. 3.1.1 has
 * only the granted QoS 0, 1, 2 and the failure 0x80 (3.9.3): the encoder writes 0x80 for every 5.0
 * error code and the decoder reads 0x80 as UNSPECIFIED_ERROR.
 */
final class SubAckCodec {
    static final int FLAGS = 0b0000;
    /** Packet identifier and at least one return code. */
    static final int MIN_REMAINING_LENGTH = 3;
    private static final int FAILURE_V3 = 0x80;

    private SubAckCodec() {}

    static SubAck decode(int flags, ByteBuffer in, ProtocolVersion version) {
        checkFlags(flags, FLAGS, PacketType.SUBACK);
        int packetId = readPacketId(in);
        boolean v5 = version.hasProperties();
        var properties = v5 ? PropertiesCodec.decode(in, Scope.SUBACK) : Properties.NONE;
        if (!in.hasRemaining()) throw new MalformedPacketException("SUBACK without reason codes (3.9.3)");
        var reasons = new ArrayList<ReasonCode>(in.remaining());
        while (in.hasRemaining()) {
            if (v5) {
                reasons.add(readReasonCode(in, PacketType.SUBACK));
            } else {
                int returnCode = readByte(in, "return code");
                reasons.add(switch (returnCode) {
                    case 0 -> ReasonCode.GRANTED_QOS_0;
                    case 1 -> ReasonCode.GRANTED_QOS_1;
                    case 2 -> ReasonCode.GRANTED_QOS_2;
                    case FAILURE_V3 -> ReasonCode.UNSPECIFIED_ERROR;
                    default -> throw new MalformedPacketException(
                            String.format("SUBACK return code 0x%02X is reserved (3.9.3)", returnCode));
                });
            }
        }
        return new SubAck(packetId, reasons, properties);
    }

    static int remainingLength(SubAck subAck, ProtocolVersion version) {
        int length = 2 + subAck.reasons().size();
        if (version.hasProperties()) length += PropertiesCodec.encodedSize(subAck.properties());
        return length;
    }

    static void encode(SubAck subAck, ProtocolVersion version, int remainingLength, ByteBuffer out) {
        boolean v5 = version.hasProperties();
        writeFixedHeader(out, PacketType.SUBACK.value() << 4 | FLAGS, remainingLength);
        writeTwoByteInteger(out, subAck.packetId());
        if (v5) PropertiesCodec.encode(out, subAck.properties());
        var reasons = subAck.reasons();
        for (int i = 0; i < reasons.size(); i++) {
            var reason = reasons.get(i);
            writeByte(out, v5 || !reason.isError() ? reason.value() : FAILURE_V3);
        }
    }
}
