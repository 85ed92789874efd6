package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.DataRepresentation.checkFlags;
import static io.pekquitto.protocol.codec.DataRepresentation.readPacketId;
import static io.pekquitto.protocol.codec.DataRepresentation.readString;
import static io.pekquitto.protocol.codec.DataRepresentation.stringSize;
import static io.pekquitto.protocol.codec.DataRepresentation.writeFixedHeader;
import static io.pekquitto.protocol.codec.DataRepresentation.writeString;
import static io.pekquitto.protocol.codec.DataRepresentation.writeTwoByteInteger;

import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.PacketType;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId.Scope;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.Unsubscribe;
import java.nio.ByteBuffer;
import java.util.ArrayList;

/**
 * UNSUBSCRIBE (3.10): packet identifier, properties in 5.0, then one or more Topic Filters, kept as
 * received text (the broker answers an unknown or invalid filter per entry).
 */
final class UnsubscribeCodec {
    static final int FLAGS = 0b0010;
    /** The packet identifier. */
    static final int MIN_REMAINING_LENGTH = 2;

    private UnsubscribeCodec() {}

    static Unsubscribe decode(int flags, ByteBuffer in, ProtocolVersion version) {
        checkFlags(flags, FLAGS, PacketType.UNSUBSCRIBE);
        int packetId = readPacketId(in);
        var properties = version.hasProperties() ? PropertiesCodec.decode(in, Scope.UNSUBSCRIBE) : Properties.NONE;
        if (!in.hasRemaining()) {
            throw new MalformedPacketException(ReasonCode.PROTOCOL_ERROR,
                    "UNSUBSCRIBE without topic filters [MQTT-3.10.3-2]");
        }
        var filters = new ArrayList<String>(4);
        while (in.hasRemaining()) filters.add(readString(in, "topic filter"));
        return new Unsubscribe(packetId, filters, properties);
    }

    static int remainingLength(Unsubscribe unsubscribe, ProtocolVersion version) {
        int length = 2;
        if (version.hasProperties()) length += PropertiesCodec.encodedSize(unsubscribe.properties());
        var filters = unsubscribe.topicFilters();
        for (int i = 0; i < filters.size(); i++) length += stringSize(filters.get(i));
        return length;
    }

    static void encode(Unsubscribe unsubscribe, ProtocolVersion version, int remainingLength, ByteBuffer out) {
        writeFixedHeader(out, PacketType.UNSUBSCRIBE.value() << 4 | FLAGS, remainingLength);
        writeTwoByteInteger(out, unsubscribe.packetId());
        if (version.hasProperties()) PropertiesCodec.encode(out, unsubscribe.properties());
        var filters = unsubscribe.topicFilters();
        for (int i = 0; i < filters.size(); i++) writeString(out, filters.get(i));
    }
}
