package io.pekquitto.protocol.codec;

import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PacketType;
import io.pekquitto.protocol.ProtocolVersion;
import java.nio.ByteBuffer;

/**
 * Turns one whole frame into a {@link Packet}: picks the codec by the fixed header's type nibble and
 * insists the codec used every byte of the frame, so no codec needs to check for leftovers. Stateless:
 * the frame comes from {@link FrameReader}, the version from the connection.
 */
final class PacketDecoder {
    private PacketDecoder() {}

    /**
     * @param fixedHeader the first byte of the frame: type nibble and flags (2.1.1)
     * @param body the variable header and payload, exactly Remaining Length bytes; consumed
     * @param owned the body's array is the decoder's own, which nothing writes: a PUBLISH payload is kept in it
     */
    static Packet decode(int fixedHeader, ByteBuffer body, boolean owned, ProtocolVersion version) {
        var type = PacketType.ofNibble(fixedHeader >> 4);
        if (type == null) throw new MalformedPacketException("packet type 0 is reserved (2.1.2)");
        int flags = fixedHeader & 0x0F;
        Packet packet = switch (type) {
            case CONNECT -> ConnectCodec.decode(flags, body);
            case CONNACK -> ConnAckCodec.decode(flags, body, version);
            case PUBLISH -> PublishCodec.decode(flags, body, owned, version);
            case PUBACK, PUBREC, PUBREL, PUBCOMP -> PubAckFamilyCodec.decode(type, flags, body, version);
            case SUBSCRIBE -> SubscribeCodec.decode(flags, body, version);
            case SUBACK -> SubAckCodec.decode(flags, body, version);
            case UNSUBSCRIBE -> UnsubscribeCodec.decode(flags, body, version);
            case UNSUBACK -> UnsubAckCodec.decode(flags, body, version);
            case PINGREQ, PINGRESP -> PingCodec.decode(type, flags, body);
            case DISCONNECT -> DisconnectCodec.decode(flags, body, version);
            case AUTH -> AuthCodec.decode(flags, body, version);
        };
        if (body.hasRemaining()) {
            throw new MalformedPacketException(body.remaining() + " bytes left over after the last field of " + type);
        }
        return packet;
    }
}
