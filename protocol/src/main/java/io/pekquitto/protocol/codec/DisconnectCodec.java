package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.DataRepresentation.checkFlags;
import static io.pekquitto.protocol.codec.DataRepresentation.readReasonCode;
import static io.pekquitto.protocol.codec.DataRepresentation.writeByte;
import static io.pekquitto.protocol.codec.DataRepresentation.writeFixedHeader;

import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.PacketType;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId.Scope;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.ReasonCode;
import java.nio.ByteBuffer;

/**
 * DISCONNECT (3.14). In 3.1.1 a fixed header alone (remaining length 0, anything more is left over);
 * it decodes as {@link Disconnect#NORMAL} and every reason encodes as {@code E0 00}. In 5.0 remaining
 * length 0 means Normal disconnection without properties, 1 a reason without properties (3.14.2.1).
 */
final class DisconnectCodec {
    static final int FLAGS = 0b0000;
    static final int MIN_REMAINING_LENGTH = 0;

    private DisconnectCodec() {}

    static Disconnect decode(int flags, ByteBuffer in, ProtocolVersion version) {
        checkFlags(flags, FLAGS, PacketType.DISCONNECT);
        if (!version.hasProperties() || !in.hasRemaining()) return Disconnect.NORMAL;
        var reason = readReasonCode(in, PacketType.DISCONNECT);
        var properties = in.hasRemaining() ? PropertiesCodec.decode(in, Scope.DISCONNECT) : Properties.NONE;
        return new Disconnect(reason, properties);
    }

    static int remainingLength(Disconnect disconnect, ProtocolVersion version) {
        if (!version.hasProperties()) return 0;
        if (disconnect.properties().isEmpty()) return disconnect.reason() == ReasonCode.NORMAL_DISCONNECTION ? 0 : 1;
        return 1 + PropertiesCodec.encodedSize(disconnect.properties());
    }

    static void encode(Disconnect disconnect, int remainingLength, ByteBuffer out) {
        writeFixedHeader(out, PacketType.DISCONNECT.value() << 4 | FLAGS, remainingLength);
        if (remainingLength > 0) {
            writeByte(out, disconnect.reason().value());
            if (remainingLength > 1) PropertiesCodec.encode(out, disconnect.properties());
        }
    }
}
