package io.pekquitto.protocol.codec;

import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.PacketType;

/**
 * The first byte of a fixed header: the packet type (2.1.2) and the flags Table 2-2 fixes for it (2.1.3
 * in 5.0, 2.2.2 in 3.1.1). Checked as soon as the byte arrives, so a client announcing a large body under
 * invalid flags is refused before any of the body is waited for; the codecs check the same flags again
 * on the whole frame.
 */
final class FixedHeader {
    /** PUBREL, SUBSCRIBE and UNSUBSCRIBE: 3.6.1, 3.8.1, 3.10.1. */
    private static final int RESERVED_0010 = 0b0010;
    /** Every other type but PUBLISH. */
    private static final int RESERVED_0000 = 0b0000;

    private FixedHeader() {}

    /**
     * @return the packet type of a valid first byte
     * @throws MalformedPacketException for type 0 or flags other than the table's ([MQTT-2.2.2-2] in
     *     3.1.1, [MQTT-2.1.3-1] in 5.0), and for a PUBLISH with QoS 3 or with DUP at QoS 0
     */
    static PacketType check(int firstByte) {
        var type = PacketType.ofNibble(firstByte >> 4);
        if (type == null) throw new MalformedPacketException("packet type 0 is reserved (2.1.2)");
        int flags = firstByte & 0x0F;
        switch (type) {
            case PUBLISH -> PublishCodec.checkFlags(flags);
            case PUBREL, SUBSCRIBE, UNSUBSCRIBE -> DataRepresentation.checkFlags(flags, RESERVED_0010, type);
            default -> DataRepresentation.checkFlags(flags, RESERVED_0000, type);
        }
        return type;
    }
}
