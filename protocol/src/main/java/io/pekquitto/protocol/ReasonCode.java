package io.pekquitto.protocol;

import static io.pekquitto.protocol.PacketType.AUTH;
import static io.pekquitto.protocol.PacketType.CONNACK;
import static io.pekquitto.protocol.PacketType.DISCONNECT;
import static io.pekquitto.protocol.PacketType.PUBACK;
import static io.pekquitto.protocol.PacketType.PUBCOMP;
import static io.pekquitto.protocol.PacketType.PUBREC;
import static io.pekquitto.protocol.PacketType.PUBREL;
import static io.pekquitto.protocol.PacketType.SUBACK;
import static io.pekquitto.protocol.PacketType.UNSUBACK;

import java.util.EnumSet;
import java.util.Set;

/**
 * The MQTT 5 Reason Code table (2.4), one constant per row, with the packets each may appear in.
 * The broker thinks in these codes; 3.1.1 return codes are derived from them when encoding.
 */
public enum ReasonCode {
    SUCCESS(0x00, CONNACK, PUBACK, PUBREC, PUBREL, PUBCOMP, UNSUBACK, AUTH),
    NORMAL_DISCONNECTION(0x00, DISCONNECT),
    GRANTED_QOS_0(0x00, SUBACK),
    GRANTED_QOS_1(0x01, SUBACK),
    GRANTED_QOS_2(0x02, SUBACK),
    DISCONNECT_WITH_WILL_MESSAGE(0x04, DISCONNECT),
    NO_MATCHING_SUBSCRIBERS(0x10, PUBACK, PUBREC),
    NO_SUBSCRIPTION_EXISTED(0x11, UNSUBACK),
    CONTINUE_AUTHENTICATION(0x18, AUTH),
    RE_AUTHENTICATE(0x19, AUTH),
    UNSPECIFIED_ERROR(0x80, CONNACK, PUBACK, PUBREC, SUBACK, UNSUBACK, DISCONNECT),
    MALFORMED_PACKET(0x81, CONNACK, DISCONNECT),
    PROTOCOL_ERROR(0x82, CONNACK, DISCONNECT),
    IMPLEMENTATION_SPECIFIC_ERROR(0x83, CONNACK, PUBACK, PUBREC, SUBACK, UNSUBACK, DISCONNECT),
    UNSUPPORTED_PROTOCOL_VERSION(0x84, CONNACK),
    CLIENT_IDENTIFIER_NOT_VALID(0x85, CONNACK),
    BAD_USER_NAME_OR_PASSWORD(0x86, CONNACK),
    NOT_AUTHORIZED(0x87, CONNACK, PUBACK, PUBREC, SUBACK, UNSUBACK, DISCONNECT),
    SERVER_UNAVAILABLE(0x88, CONNACK),
    SERVER_BUSY(0x89, CONNACK, DISCONNECT),
    BANNED(0x8A, CONNACK),
    SERVER_SHUTTING_DOWN(0x8B, DISCONNECT),
    BAD_AUTHENTICATION_METHOD(0x8C, CONNACK, DISCONNECT),
    KEEP_ALIVE_TIMEOUT(0x8D, DISCONNECT),
    SESSION_TAKEN_OVER(0x8E, DISCONNECT),
    TOPIC_FILTER_INVALID(0x8F, SUBACK, UNSUBACK, DISCONNECT),
    TOPIC_NAME_INVALID(0x90, CONNACK, PUBACK, PUBREC, DISCONNECT),
    PACKET_IDENTIFIER_IN_USE(0x91, PUBACK, PUBREC, SUBACK, UNSUBACK),
    PACKET_IDENTIFIER_NOT_FOUND(0x92, PUBREL, PUBCOMP),
    RECEIVE_MAXIMUM_EXCEEDED(0x93, DISCONNECT),
    TOPIC_ALIAS_INVALID(0x94, DISCONNECT),
    PACKET_TOO_LARGE(0x95, CONNACK, DISCONNECT),
    MESSAGE_RATE_TOO_HIGH(0x96, DISCONNECT),
    QUOTA_EXCEEDED(0x97, CONNACK, PUBACK, PUBREC, SUBACK, DISCONNECT),
    ADMINISTRATIVE_ACTION(0x98, DISCONNECT),
    PAYLOAD_FORMAT_INVALID(0x99, CONNACK, PUBACK, PUBREC, DISCONNECT),
    RETAIN_NOT_SUPPORTED(0x9A, CONNACK, DISCONNECT),
    QOS_NOT_SUPPORTED(0x9B, CONNACK, DISCONNECT),
    USE_ANOTHER_SERVER(0x9C, CONNACK, DISCONNECT),
    SERVER_MOVED(0x9D, CONNACK, DISCONNECT),
    SHARED_SUBSCRIPTIONS_NOT_SUPPORTED(0x9E, SUBACK, DISCONNECT),
    CONNECTION_RATE_EXCEEDED(0x9F, CONNACK, DISCONNECT),
    MAXIMUM_CONNECT_TIME(0xA0, DISCONNECT),
    SUBSCRIPTION_IDENTIFIERS_NOT_SUPPORTED(0xA1, SUBACK, DISCONNECT),
    WILDCARD_SUBSCRIPTIONS_NOT_SUPPORTED(0xA2, SUBACK, DISCONNECT);

    private final int value;
    private final Set<PacketType> packets;

    ReasonCode(int value, PacketType first, PacketType... rest) {
        this.value = value;
        this.packets = EnumSet.of(first, rest);
    }

    public int value() { return value; }

    /** Codes of 0x80 and above report a failure (2.4). */
    public boolean isError() { return value >= 0x80; }

    /** Whether the spec's table allows this code in that packet. */
    public boolean isAllowedIn(PacketType type) { return packets.contains(type); }

    /**
     * The code with this wire value in this packet type.
     *
     * @throws MalformedPacketException if the table has no such code for the packet
     */
    public static ReasonCode of(int value, PacketType type) {
        for (var code : values()) {
            if (code.value == value && code.packets.contains(type)) return code;
        }
        throw new MalformedPacketException(
                String.format("reason code 0x%02X is not valid in %s", value, type));
    }

    /** The SUBACK code that grants this QoS. */
    public static ReasonCode granted(QoS qos) {
        return switch (qos) {
            case AT_MOST_ONCE -> GRANTED_QOS_0;
            case AT_LEAST_ONCE -> GRANTED_QOS_1;
            case EXACTLY_ONCE -> GRANTED_QOS_2;
        };
    }

    /**
     * The MQTT 3.1.1 CONNACK return code (3.2.2.3) for this code: 0 accepted, 1 unacceptable protocol
     * version, 2 identifier rejected, 3 server unavailable, 4 bad user name or password, 5 not authorized.
     */
    public int connAckReturnCodeV3() {
        return switch (this) {
            case SUCCESS -> 0;
            case UNSUPPORTED_PROTOCOL_VERSION -> 1;
            case CLIENT_IDENTIFIER_NOT_VALID -> 2;
            case BAD_USER_NAME_OR_PASSWORD, BAD_AUTHENTICATION_METHOD -> 4;
            case NOT_AUTHORIZED, BANNED -> 5;
            default -> 3;
        };
    }

    /** The reason code for a 3.1.1 CONNACK return code. */
    public static ReasonCode fromConnAckReturnCodeV3(int returnCode) {
        return switch (returnCode) {
            case 0 -> SUCCESS;
            case 1 -> UNSUPPORTED_PROTOCOL_VERSION;
            case 2 -> CLIENT_IDENTIFIER_NOT_VALID;
            case 3 -> SERVER_UNAVAILABLE;
            case 4 -> BAD_USER_NAME_OR_PASSWORD;
            case 5 -> NOT_AUTHORIZED;
            default -> throw new MalformedPacketException(
                    "CONNACK return code " + returnCode + " is reserved");
        };
    }
}
