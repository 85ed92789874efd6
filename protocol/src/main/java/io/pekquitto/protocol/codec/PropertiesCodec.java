package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.DataRepresentation.binarySize;
import static io.pekquitto.protocol.codec.DataRepresentation.pastEnd;
import static io.pekquitto.protocol.codec.DataRepresentation.readBinary;
import static io.pekquitto.protocol.codec.DataRepresentation.readByte;
import static io.pekquitto.protocol.codec.DataRepresentation.readFourByteInteger;
import static io.pekquitto.protocol.codec.DataRepresentation.readString;
import static io.pekquitto.protocol.codec.DataRepresentation.readTwoByteInteger;
import static io.pekquitto.protocol.codec.DataRepresentation.readVariableByteInteger;
import static io.pekquitto.protocol.codec.DataRepresentation.stringSize;
import static io.pekquitto.protocol.codec.DataRepresentation.variableByteIntegerSize;
import static io.pekquitto.protocol.codec.DataRepresentation.writeBinary;
import static io.pekquitto.protocol.codec.DataRepresentation.writeByte;
import static io.pekquitto.protocol.codec.DataRepresentation.writeFourByteInteger;
import static io.pekquitto.protocol.codec.DataRepresentation.writeString;
import static io.pekquitto.protocol.codec.DataRepresentation.writeTwoByteInteger;
import static io.pekquitto.protocol.codec.DataRepresentation.writeVariableByteInteger;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.PropertyId.Scope;
import io.pekquitto.protocol.ReasonCode;
import java.nio.ByteBuffer;

/**
 * MQTT 5 properties (2.2.2): a Variable Byte Integer length, then identifier and value pairs.
 *
 * <p>Decoding enforces what can be judged from the property set alone: an unknown identifier, a property
 * outside its scope, or a length running past the packet is Malformed; a second copy of a single-valued
 * property, a repeated Subscription Identifier outside PUBLISH and the values the spec calls a Protocol
 * Error (Receive Maximum 0, Maximum Packet Size 0, a Byte flag other than 0 or 1, Maximum QoS above 1,
 * Subscription Identifier 0) are PROTOCOL_ERROR. Topic Alias 0 and aliases above the maximum are left to
 * the connection, which answers them with TOPIC_ALIAS_INVALID.
 *
 * <p>Encoding writes the single-valued properties in identifier order, then Subscription Identifiers,
 * then User Properties, straight into the target.
 *
 * <p>Public for the cluster's mesh serializer (docs/cluster.md), which carries a message's properties
 * between nodes in this very encoding.
 */
public final class PropertiesCodec {
    /** Every identifier but the two repeatable ones; cached because {@code values()} clones. */
    private static final PropertyId[] SINGLE_VALUED = java.util.Arrays.stream(PropertyId.values())
            .filter(id -> id != PropertyId.SUBSCRIPTION_IDENTIFIER && id != PropertyId.USER_PROPERTY)
            .toArray(PropertyId[]::new);

    private PropertiesCodec() {}

    /** Reads a property length and the properties it covers; {@link Properties#NONE} when empty. */
    public static Properties decode(ByteBuffer in, Scope scope) {
        int length = readVariableByteInteger(in, "property length");
        if (length == 0) return Properties.NONE;
        if (in.remaining() < length) throw pastEnd("property length");
        int limit = in.limit();
        in.limit(in.position() + length);
        try {
            var builder = Properties.builder();
            int subscriptionIdentifiers = 0;
            while (in.hasRemaining()) {
                int identifier = readVariableByteInteger(in, "property identifier");
                var id = PropertyId.of(identifier);
                if (id == null) {
                    throw new MalformedPacketException(String.format("unknown property identifier 0x%02X", identifier));
                }
                if (!id.isAllowedIn(scope)) {
                    throw new MalformedPacketException(id + " is not allowed in " + scope + " properties");
                }
                switch (id) {
                    case SUBSCRIPTION_IDENTIFIER -> {
                        int value = readVariableByteInteger(in, "Subscription Identifier");
                        if (value == 0) throw protocolError("Subscription Identifier 0 (3.8.2.1.2)");
                        // PUBLISH may carry one per matching subscription (3.3.2.3.8), SUBSCRIBE only one.
                        if (scope != Scope.PUBLISH && subscriptionIdentifiers > 0) {
                            throw protocolError("more than one Subscription Identifier in " + scope);
                        }
                        subscriptionIdentifiers++;
                        builder.addSubscriptionIdentifier(value);
                    }
                    case USER_PROPERTY -> {
                        String name = readString(in, "User Property name");
                        builder.addUserProperty(name, readString(in, "User Property value"));
                    }
                    default -> {
                        if (builder.has(id)) throw protocolError(id + " appears more than once (2.2.2.2)");
                        builder.set(id, readValue(in, id));
                    }
                }
            }
            return builder.build();
        } finally {
            in.limit(limit);
        }
    }

    private static Object readValue(ByteBuffer in, PropertyId id) {
        String field = id.name();
        return switch (id.dataType()) {
            case BYTE -> {
                int value = readByte(in, field);
                // Payload Format Indicator, Request Problem/Response Information, Maximum QoS and the
                // four "... Available" flags are all 0 or 1.
                if (value > 1) throw protocolError(id + " " + value + ", not 0 or 1");
                yield value;
            }
            case TWO_BYTE_INTEGER -> {
                int value = readTwoByteInteger(in, field);
                if (value == 0 && id == PropertyId.RECEIVE_MAXIMUM) throw protocolError("Receive Maximum 0 (3.1.2.11.3)");
                yield value;
            }
            case FOUR_BYTE_INTEGER -> {
                long value = readFourByteInteger(in, field);
                if (value == 0 && id == PropertyId.MAXIMUM_PACKET_SIZE) {
                    throw protocolError("Maximum Packet Size 0 (3.1.2.11.4)");
                }
                yield value;
            }
            case UTF8_STRING -> readString(in, field);
            case BINARY -> readBinary(in, field);
            case VARIABLE_BYTE_INTEGER, UTF8_STRING_PAIR -> throw new IllegalStateException(id + " is repeatable");
        };
    }

    private static MalformedPacketException protocolError(String message) {
        return new MalformedPacketException(ReasonCode.PROTOCOL_ERROR, message);
    }

    /** The bytes the properties take after the property length. */
    static int contentLength(Properties properties) {
        if (properties.isEmpty()) return 0;
        int length = 0;
        for (var id : SINGLE_VALUED) {
            Object value = properties.get(id);
            if (value != null) length += 1 + valueSize(id, value);
        }
        var subscriptionIdentifiers = properties.subscriptionIdentifiers();
        for (int i = 0; i < subscriptionIdentifiers.size(); i++) {
            length += 1 + variableByteIntegerSize(subscriptionIdentifiers.get(i));
        }
        var userProperties = properties.userProperties();
        for (int i = 0; i < userProperties.size(); i++) {
            var property = userProperties.get(i);
            length += 1 + stringSize(property.name()) + stringSize(property.value());
        }
        return length;
    }

    /** The bytes the property length and the properties take together. */
    public static int encodedSize(Properties properties) {
        int length = contentLength(properties);
        return variableByteIntegerSize(length) + length;
    }

    private static int valueSize(PropertyId id, Object value) {
        return switch (id.dataType()) {
            case BYTE -> 1;
            case TWO_BYTE_INTEGER -> 2;
            case FOUR_BYTE_INTEGER -> 4;
            case UTF8_STRING -> stringSize((String) value);
            case BINARY -> binarySize((Binary) value);
            case VARIABLE_BYTE_INTEGER, UTF8_STRING_PAIR -> throw new IllegalStateException(id + " is repeatable");
        };
    }

    /** Writes the property length and the properties; {@link #encodedSize} bytes. */
    public static void encode(ByteBuffer out, Properties properties) {
        writeVariableByteInteger(out, contentLength(properties));
        if (properties.isEmpty()) return;
        for (var id : SINGLE_VALUED) {
            Object value = properties.get(id);
            if (value == null) continue;
            writeByte(out, id.value());
            switch (id.dataType()) {
                case BYTE -> writeByte(out, (Integer) value);
                case TWO_BYTE_INTEGER -> writeTwoByteInteger(out, (Integer) value);
                case FOUR_BYTE_INTEGER -> writeFourByteInteger(out, (Long) value);
                case UTF8_STRING -> writeString(out, (String) value);
                case BINARY -> writeBinary(out, (Binary) value);
                case VARIABLE_BYTE_INTEGER, UTF8_STRING_PAIR -> throw new IllegalStateException(id + " is repeatable");
            }
        }
        var subscriptionIdentifiers = properties.subscriptionIdentifiers();
        for (int i = 0; i < subscriptionIdentifiers.size(); i++) {
            writeByte(out, PropertyId.SUBSCRIPTION_IDENTIFIER.value());
            writeVariableByteInteger(out, subscriptionIdentifiers.get(i));
        }
        var userProperties = properties.userProperties();
        for (int i = 0; i < userProperties.size(); i++) {
            var property = userProperties.get(i);
            writeByte(out, PropertyId.USER_PROPERTY.value());
            writeString(out, property.name());
            writeString(out, property.value());
        }
    }
}
