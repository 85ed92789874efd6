package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.DataRepresentation.checkFlags;
import static io.pekquitto.protocol.codec.DataRepresentation.writeFixedHeader;

import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PacketType;
import io.pekquitto.protocol.PingReq;
import io.pekquitto.protocol.PingResp;
import java.nio.ByteBuffer;

/**
 * PINGREQ (3.12) and PINGRESP (3.13): a fixed header alone, the same in every version. Any byte after
 * it is left over, which the decoder rejects.
 */
final class PingCodec {
    static final int FLAGS = 0b0000;
    static final int REMAINING_LENGTH = 0;

    private PingCodec() {}

    static Packet decode(PacketType type, int flags, ByteBuffer in) {
        checkFlags(flags, FLAGS, type);
        return type == PacketType.PINGREQ ? PingReq.INSTANCE : PingResp.INSTANCE;
    }

    static void encode(PacketType type, ByteBuffer out) {
        writeFixedHeader(out, type.value() << 4 | FLAGS, REMAINING_LENGTH);
    }
}
