package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.DataRepresentation.checkFlags;
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
import io.pekquitto.protocol.UnsubAck;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * UNSUBACK (3.11): packet identifier; in 5.0 then properties and one reason code per topic filter. A
 * 3.1.1 UNSUBACK is only the packet identifier: it decodes with no reasons and encodes without them.
 */
final class UnsubAckCodec {
    static final int FLAGS = 0b0000;
    /** The packet identifier. */
    static final int MIN_REMAINING_LENGTH = 2;

    private UnsubAckCodec() {}

    static UnsubAck decode(int flags, ByteBuffer in, ProtocolVersion version) {
        checkFlags(flags, FLAGS, PacketType.UNSUBACK);
        int packetId = readPacketId(in);
        if (!version.hasProperties()) return new UnsubAck(packetId, List.of(), Properties.NONE);
        var properties = PropertiesCodec.decode(in, Scope.UNSUBACK);
        if (!in.hasRemaining()) throw new MalformedPacketException("UNSUBACK without reason codes (3.11.3)");
        var reasons = new ArrayList<ReasonCode>(in.remaining());
        while (in.hasRemaining()) reasons.add(readReasonCode(in, PacketType.UNSUBACK));
        return new UnsubAck(packetId, reasons, properties);
    }

    static int remainingLength(UnsubAck unsubAck, ProtocolVersion version) {
        if (!version.hasProperties()) return 2;
        return 2 + PropertiesCodec.encodedSize(unsubAck.properties()) + unsubAck.reasons().size();
    }

    static void encode(UnsubAck unsubAck, ProtocolVersion version, int remainingLength, ByteBuffer out) {
        writeFixedHeader(out, PacketType.UNSUBACK.value() << 4 | FLAGS, remainingLength);
        writeTwoByteInteger(out, unsubAck.packetId());
        if (!version.hasProperties()) return;
        PropertiesCodec.encode(out, unsubAck.properties());
        var reasons = unsubAck.reasons();
        for (int i = 0; i < reasons.size(); i++) writeByte(out, reasons.get(i).value());
    }
}
