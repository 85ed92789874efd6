package io.pekquitto.protocol;

import java.util.EnumSet;
import java.util.Set;

/**
 * MQTT 5 property identifiers (2.2.2.2), with their data type and where each may appear. A property in
 * a packet that does not allow it is a Malformed Packet. {@code WILL} stands for the Will Properties
 * of CONNECT (3.1.3.2).
 */
public enum PropertyId {
    PAYLOAD_FORMAT_INDICATOR(0x01, DataType.BYTE, Scope.PUBLISH, Scope.WILL),
    MESSAGE_EXPIRY_INTERVAL(0x02, DataType.FOUR_BYTE_INTEGER, Scope.PUBLISH, Scope.WILL),
    CONTENT_TYPE(0x03, DataType.UTF8_STRING, Scope.PUBLISH, Scope.WILL),
    RESPONSE_TOPIC(0x08, DataType.UTF8_STRING, Scope.PUBLISH, Scope.WILL),
    CORRELATION_DATA(0x09, DataType.BINARY, Scope.PUBLISH, Scope.WILL),
    SUBSCRIPTION_IDENTIFIER(0x0B, DataType.VARIABLE_BYTE_INTEGER, Scope.PUBLISH, Scope.SUBSCRIBE),
    SESSION_EXPIRY_INTERVAL(0x11, DataType.FOUR_BYTE_INTEGER, Scope.CONNECT, Scope.CONNACK, Scope.DISCONNECT),
    ASSIGNED_CLIENT_IDENTIFIER(0x12, DataType.UTF8_STRING, Scope.CONNACK),
    SERVER_KEEP_ALIVE(0x13, DataType.TWO_BYTE_INTEGER, Scope.CONNACK),
    AUTHENTICATION_METHOD(0x15, DataType.UTF8_STRING, Scope.CONNECT, Scope.CONNACK, Scope.AUTH),
    AUTHENTICATION_DATA(0x16, DataType.BINARY, Scope.CONNECT, Scope.CONNACK, Scope.AUTH),
    REQUEST_PROBLEM_INFORMATION(0x17, DataType.BYTE, Scope.CONNECT),
    WILL_DELAY_INTERVAL(0x18, DataType.FOUR_BYTE_INTEGER, Scope.WILL),
    REQUEST_RESPONSE_INFORMATION(0x19, DataType.BYTE, Scope.CONNECT),
    RESPONSE_INFORMATION(0x1A, DataType.UTF8_STRING, Scope.CONNACK),
    SERVER_REFERENCE(0x1C, DataType.UTF8_STRING, Scope.CONNACK, Scope.DISCONNECT),
    REASON_STRING(0x1F, DataType.UTF8_STRING, Scope.CONNACK, Scope.PUBACK, Scope.PUBREC, Scope.PUBREL,
            Scope.PUBCOMP, Scope.SUBACK, Scope.UNSUBACK, Scope.DISCONNECT, Scope.AUTH),
    RECEIVE_MAXIMUM(0x21, DataType.TWO_BYTE_INTEGER, Scope.CONNECT, Scope.CONNACK),
    TOPIC_ALIAS_MAXIMUM(0x22, DataType.TWO_BYTE_INTEGER, Scope.CONNECT, Scope.CONNACK),
    TOPIC_ALIAS(0x23, DataType.TWO_BYTE_INTEGER, Scope.PUBLISH),
    MAXIMUM_QOS(0x24, DataType.BYTE, Scope.CONNACK),
    RETAIN_AVAILABLE(0x25, DataType.BYTE, Scope.CONNACK),
    USER_PROPERTY(0x26, DataType.UTF8_STRING_PAIR, Scope.values()),
    MAXIMUM_PACKET_SIZE(0x27, DataType.FOUR_BYTE_INTEGER, Scope.CONNECT, Scope.CONNACK),
    WILDCARD_SUBSCRIPTION_AVAILABLE(0x28, DataType.BYTE, Scope.CONNACK),
    SUBSCRIPTION_IDENTIFIER_AVAILABLE(0x29, DataType.BYTE, Scope.CONNACK),
    SHARED_SUBSCRIPTION_AVAILABLE(0x2A, DataType.BYTE, Scope.CONNACK);

    /** The data representations of 1.5. */
    public enum DataType {
        BYTE, TWO_BYTE_INTEGER, FOUR_BYTE_INTEGER, VARIABLE_BYTE_INTEGER, UTF8_STRING, BINARY, UTF8_STRING_PAIR
    }

    /** Where a property set appears: a packet type, or the Will Properties inside CONNECT. */
    public enum Scope {
        CONNECT, CONNACK, PUBLISH, WILL, PUBACK, PUBREC, PUBREL, PUBCOMP, SUBSCRIBE, SUBACK,
        UNSUBSCRIBE, UNSUBACK, DISCONNECT, AUTH
    }

    private static final PropertyId[] BY_VALUE = new PropertyId[0x2B];
    static {
        for (var id : values()) BY_VALUE[id.value] = id;
    }

    private final int value;
    private final DataType dataType;
    private final Set<Scope> scopes;

    PropertyId(int value, DataType dataType, Scope... scopes) {
        this.value = value;
        this.dataType = dataType;
        this.scopes = EnumSet.copyOf(java.util.List.of(scopes));
    }

    public int value() { return value; }

    public DataType dataType() { return dataType; }

    public boolean isAllowedIn(Scope scope) { return scopes.contains(scope); }

    /** The property with this identifier, or null if the identifier is not defined. */
    public static PropertyId of(int value) {
        return value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : null;
    }
}
