package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.DataRepresentation.checkFlags;
import static io.pekquitto.protocol.codec.DataRepresentation.readReasonCode;
import static io.pekquitto.protocol.codec.DataRepresentation.writeByte;
import static io.pekquitto.protocol.codec.DataRepresentation.writeFixedHeader;

import io.pekquitto.protocol.Auth;
import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.PacketType;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId.Scope;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.ReasonCode;
import java.nio.ByteBuffer;

/**
 * AUTH (3.15), MQTT 5 only: packet type 15 is reserved in 3.1.1 (2.2.1), so it is Malformed there.
 * Remaining length 0 means Success without properties (3.15.2.1); otherwise a reason code and a
 * property length follow (unlike DISCONNECT, the spec gives no shorter form with the reason alone).
 */
final class AuthCodec {
    static final int FLAGS = 0b0000;
    static final int MIN_REMAINING_LENGTH = 0;

    private AuthCodec() {}

    static Auth decode(int flags, ByteBuffer in, ProtocolVersion version) {
        if (!version.hasProperties()) throw new MalformedPacketException("AUTH is not a packet of " + version);
        checkFlags(flags, FLAGS, PacketType.AUTH);
        if (!in.hasRemaining()) return new Auth(ReasonCode.SUCCESS, Properties.NONE);
        var reason = readReasonCode(in, PacketType.AUTH);
        return new Auth(reason, PropertiesCodec.decode(in, Scope.AUTH));
    }

    static int remainingLength(Auth auth, ProtocolVersion version) {
        if (!version.hasProperties()) throw new IllegalArgumentException("AUTH is not a packet of " + version);
        if (auth.reason() == ReasonCode.SUCCESS && auth.properties().isEmpty()) return 0;
        return 1 + PropertiesCodec.encodedSize(auth.properties());
    }

    static void encode(Auth auth, int remainingLength, ByteBuffer out) {
        writeFixedHeader(out, PacketType.AUTH.value() << 4 | FLAGS, remainingLength);
        if (remainingLength > 0) {
            writeByte(out, auth.reason().value());
            PropertiesCodec.encode(out, auth.properties());
        }
    }
}
