package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.DataRepresentation.checkFlags;
import static io.pekquitto.protocol.codec.DataRepresentation.readByte;
import static io.pekquitto.protocol.codec.DataRepresentation.readPacketId;
import static io.pekquitto.protocol.codec.DataRepresentation.readString;
import static io.pekquitto.protocol.codec.DataRepresentation.stringSize;
import static io.pekquitto.protocol.codec.DataRepresentation.writeByte;
import static io.pekquitto.protocol.codec.DataRepresentation.writeFixedHeader;
import static io.pekquitto.protocol.codec.DataRepresentation.writeString;
import static io.pekquitto.protocol.codec.DataRepresentation.writeTwoByteInteger;

import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.PacketType;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId.Scope;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.Subscribe;
import io.pekquitto.protocol.Subscription;
import io.pekquitto.protocol.SubscriptionOptions;
import java.nio.ByteBuffer;
import java.util.ArrayList;

/**
 * SUBSCRIBE (3.8): packet identifier, properties in 5.0, then one or more pairs of Topic Filter and
 * Subscription Options byte. The filter text is only checked as UTF-8 here: an invalid filter fails one
 * entry (SUBACK 0x8F), not the packet, so the broker judges it.
 */
final class SubscribeCodec {
    static final int FLAGS = 0b0010;
    /** Packet identifier; the payload's first entry is checked on its own. */
    static final int MIN_REMAINING_LENGTH = 2;

    // Subscription Options, 3.8.3.1.
    private static final int QOS_MASK = 0b0000_0011;
    private static final int NO_LOCAL = 0b0000_0100;
    private static final int RETAIN_AS_PUBLISHED = 0b0000_1000;
    private static final int RETAIN_HANDLING_SHIFT = 4;
    private static final int RETAIN_HANDLING_MASK = 0b0011_0000;
    private static final int RESERVED_V5 = 0b1100_0000;
    private static final int RESERVED_V3 = 0b1111_1100;

    private SubscribeCodec() {}

    static Subscribe decode(int flags, ByteBuffer in, ProtocolVersion version) {
        checkFlags(flags, FLAGS, PacketType.SUBSCRIBE);
        int packetId = readPacketId(in);
        boolean v5 = version.hasProperties();
        var properties = v5 ? PropertiesCodec.decode(in, Scope.SUBSCRIBE) : Properties.NONE;
        if (!in.hasRemaining()) {
            throw new MalformedPacketException(ReasonCode.PROTOCOL_ERROR, "SUBSCRIBE without subscriptions [MQTT-3.8.3-3]");
        }
        var subscriptions = new ArrayList<Subscription>(4);
        while (in.hasRemaining()) {
            String filter = readString(in, "topic filter");
            int options = readByte(in, "subscription options");
            if (v5 && (options & RESERVED_V5) != 0) {
                throw new MalformedPacketException("reserved subscription option bits set [MQTT-3.8.3-5]");
            }
            if (!v5 && (options & RESERVED_V3) != 0) {
                // [MQTT-3.8.3-4] in 3.1.1
                throw new MalformedPacketException("reserved bits of the requested QoS byte set [MQTT-3.8.3-4]");
            }
            int qos = options & QOS_MASK;
            if (qos == 3) {
                // 3.8.3.1: a Protocol Error in MQTT 5; in 3.1.1 a reserved value, so malformed.
                throw v5 ? new MalformedPacketException(ReasonCode.PROTOCOL_ERROR, "Maximum QoS 3 (3.8.3.1)")
                        : new MalformedPacketException("subscription with QoS 3 (3.8.3.1)");
            }
            int retainHandling = (options & RETAIN_HANDLING_MASK) >> RETAIN_HANDLING_SHIFT;
            if (retainHandling == 3) {
                throw new MalformedPacketException(ReasonCode.PROTOCOL_ERROR, "Retain Handling 3 (3.8.3.1)");
            }
            var subscriptionOptions = v5
                    ? new SubscriptionOptions(QoS.of(qos), (options & NO_LOCAL) != 0,
                            (options & RETAIN_AS_PUBLISHED) != 0, retainHandling)
                    : SubscriptionOptions.of(QoS.of(qos));
            subscriptions.add(new Subscription(filter, subscriptionOptions));
        }
        return new Subscribe(packetId, subscriptions, properties);
    }

    static int remainingLength(Subscribe subscribe, ProtocolVersion version) {
        int length = 2;
        if (version.hasProperties()) length += PropertiesCodec.encodedSize(subscribe.properties());
        var subscriptions = subscribe.subscriptions();
        for (int i = 0; i < subscriptions.size(); i++) {
            length += stringSize(subscriptions.get(i).topicFilter()) + 1;
        }
        return length;
    }

    static void encode(Subscribe subscribe, ProtocolVersion version, int remainingLength, ByteBuffer out) {
        boolean v5 = version.hasProperties();
        writeFixedHeader(out, PacketType.SUBSCRIBE.value() << 4 | FLAGS, remainingLength);
        writeTwoByteInteger(out, subscribe.packetId());
        if (v5) PropertiesCodec.encode(out, subscribe.properties());
        var subscriptions = subscribe.subscriptions();
        for (int i = 0; i < subscriptions.size(); i++) {
            var subscription = subscriptions.get(i);
            var options = subscription.options();
            writeString(out, subscription.topicFilter());
            int optionsByte = options.maximumQos().value();
            if (v5) {
                optionsByte |= (options.noLocal() ? NO_LOCAL : 0)
                        | (options.retainAsPublished() ? RETAIN_AS_PUBLISHED : 0)
                        | options.retainHandling() << RETAIN_HANDLING_SHIFT;
            }
            writeByte(out, optionsByte);
        }
    }
}
