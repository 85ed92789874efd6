package io.pekquitto.protocol;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An immutable MQTT 5 property set (2.2.2). 3.1.1 packets carry {@link #NONE}. Values are stored by
 * identifier: {@code Integer} for Byte and Two Byte Integer properties, {@code Long} for Four Byte
 * Integers, {@code String}, {@link Binary}; Subscription Identifiers and User Properties, which may
 * repeat, are lists. Accessors return the spec's default where it gives one.
 */
public final class Properties {
    public static final Properties NONE = new Properties(new EnumMap<>(PropertyId.class), List.of(), List.of());

    private final EnumMap<PropertyId, Object> values;
    private final List<Integer> subscriptionIdentifiers;
    private final List<UserProperty> userProperties;

    private Properties(EnumMap<PropertyId, Object> values, List<Integer> subscriptionIdentifiers,
                       List<UserProperty> userProperties) {
        this.values = values;
        this.subscriptionIdentifiers = subscriptionIdentifiers;
        this.userProperties = userProperties;
    }

    public static Builder builder() { return new Builder(); }

    /** A builder holding a copy of these properties, to change some of them. */
    public Builder toBuilder() {
        var builder = new Builder();
        builder.values.putAll(values);
        builder.subscriptionIdentifiers.addAll(subscriptionIdentifiers);
        builder.userProperties.addAll(userProperties);
        return builder;
    }

    public boolean isEmpty() {
        return values.isEmpty() && subscriptionIdentifiers.isEmpty() && userProperties.isEmpty();
    }

    /** Whether a single-valued property is present (use the list accessors for the repeatable two). */
    public boolean has(PropertyId id) { return values.containsKey(id); }

    /** The raw value of a single-valued property, or null. */
    public Object get(PropertyId id) { return values.get(id); }

    /** The single-valued properties present, in identifier order. */
    public Map<PropertyId, Object> singleValued() { return Collections.unmodifiableMap(values); }

    public List<Integer> subscriptionIdentifiers() { return subscriptionIdentifiers; }

    public List<UserProperty> userProperties() { return userProperties; }

    private Optional<Integer> integer(PropertyId id) { return Optional.ofNullable((Integer) values.get(id)); }

    private Optional<Long> fourByte(PropertyId id) { return Optional.ofNullable((Long) values.get(id)); }

    private Optional<String> string(PropertyId id) { return Optional.ofNullable((String) values.get(id)); }

    private Optional<Binary> binary(PropertyId id) { return Optional.ofNullable((Binary) values.get(id)); }

    public Optional<Integer> payloadFormatIndicator() { return integer(PropertyId.PAYLOAD_FORMAT_INDICATOR); }
    public Optional<Long> messageExpiryInterval() { return fourByte(PropertyId.MESSAGE_EXPIRY_INTERVAL); }
    public Optional<String> contentType() { return string(PropertyId.CONTENT_TYPE); }
    public Optional<String> responseTopic() { return string(PropertyId.RESPONSE_TOPIC); }
    public Optional<Binary> correlationData() { return binary(PropertyId.CORRELATION_DATA); }
    /** Absent means 0: the session ends when the network connection closes (3.1.2.11.2). */
    public long sessionExpiryInterval() { return fourByte(PropertyId.SESSION_EXPIRY_INTERVAL).orElse(0L); }
    public Optional<Long> sessionExpiryIntervalIfPresent() { return fourByte(PropertyId.SESSION_EXPIRY_INTERVAL); }
    public Optional<String> assignedClientIdentifier() { return string(PropertyId.ASSIGNED_CLIENT_IDENTIFIER); }
    public Optional<Integer> serverKeepAlive() { return integer(PropertyId.SERVER_KEEP_ALIVE); }
    public Optional<String> authenticationMethod() { return string(PropertyId.AUTHENTICATION_METHOD); }
    public Optional<Binary> authenticationData() { return binary(PropertyId.AUTHENTICATION_DATA); }
    /** Absent means 1: reason strings and user properties may be sent (3.1.2.11.7). */
    public int requestProblemInformation() { return integer(PropertyId.REQUEST_PROBLEM_INFORMATION).orElse(1); }
    /** Absent means 0 (3.1.3.2.2). */
    public long willDelayInterval() { return fourByte(PropertyId.WILL_DELAY_INTERVAL).orElse(0L); }
    /** Absent means 0 (3.1.2.11.6). */
    public int requestResponseInformation() { return integer(PropertyId.REQUEST_RESPONSE_INFORMATION).orElse(0); }
    public Optional<String> responseInformation() { return string(PropertyId.RESPONSE_INFORMATION); }
    public Optional<String> serverReference() { return string(PropertyId.SERVER_REFERENCE); }
    public Optional<String> reasonString() { return string(PropertyId.REASON_STRING); }
    /** Absent means 65,535 (3.1.2.11.3). */
    public int receiveMaximum() { return integer(PropertyId.RECEIVE_MAXIMUM).orElse(65_535); }
    /** Absent means 0: no topic aliases accepted (3.1.2.11.5). */
    public int topicAliasMaximum() { return integer(PropertyId.TOPIC_ALIAS_MAXIMUM).orElse(0); }
    public Optional<Integer> topicAlias() { return integer(PropertyId.TOPIC_ALIAS); }
    public Optional<Integer> maximumQos() { return integer(PropertyId.MAXIMUM_QOS); }
    public Optional<Integer> retainAvailable() { return integer(PropertyId.RETAIN_AVAILABLE); }
    /** Absent means no limit beyond the protocol's own (3.1.2.11.4). */
    public Optional<Long> maximumPacketSize() { return fourByte(PropertyId.MAXIMUM_PACKET_SIZE); }
    public Optional<Integer> wildcardSubscriptionAvailable() { return integer(PropertyId.WILDCARD_SUBSCRIPTION_AVAILABLE); }
    public Optional<Integer> subscriptionIdentifierAvailable() { return integer(PropertyId.SUBSCRIPTION_IDENTIFIER_AVAILABLE); }
    public Optional<Integer> sharedSubscriptionAvailable() { return integer(PropertyId.SHARED_SUBSCRIPTION_AVAILABLE); }

    @Override
    public boolean equals(Object o) {
        return o instanceof Properties p && values.equals(p.values)
                && subscriptionIdentifiers.equals(p.subscriptionIdentifiers)
                && userProperties.equals(p.userProperties);
    }

    @Override
    public int hashCode() { return values.hashCode() * 31 + subscriptionIdentifiers.hashCode() * 17 + userProperties.hashCode(); }

    @Override
    public String toString() {
        return "Properties" + values + (subscriptionIdentifiers.isEmpty() ? "" : " subscriptionIds=" + subscriptionIdentifiers)
                + (userProperties.isEmpty() ? "" : " user=" + userProperties);
    }

    /** Collects properties; {@link #build()} returns {@link #NONE} when nothing was set. */
    public static final class Builder {
        private final EnumMap<PropertyId, Object> values = new EnumMap<>(PropertyId.class);
        private final List<Integer> subscriptionIdentifiers = new ArrayList<>(0);
        private final List<UserProperty> userProperties = new ArrayList<>(0);

        private Builder() {}

        /**
         * Sets a single-valued property; the value's Java type must match the identifier's data type
         * (Integer, Long, String or Binary). Subscription Identifier and User Property have their own adders.
         */
        public Builder set(PropertyId id, Object value) {
            if (id == PropertyId.SUBSCRIPTION_IDENTIFIER || id == PropertyId.USER_PROPERTY) {
                throw new IllegalArgumentException(id + " is repeatable: use its add method");
            }
            var expected = switch (id.dataType()) {
                case BYTE, TWO_BYTE_INTEGER, VARIABLE_BYTE_INTEGER -> Integer.class;
                case FOUR_BYTE_INTEGER -> Long.class;
                case UTF8_STRING -> String.class;
                case BINARY -> Binary.class;
                case UTF8_STRING_PAIR -> UserProperty.class;
            };
            if (!expected.isInstance(value)) {
                throw new IllegalArgumentException(id + " takes a " + expected.getSimpleName() + ", not " + value);
            }
            values.put(id, value);
            return this;
        }

        public Builder remove(PropertyId id) {
            values.remove(id);
            return this;
        }

        public Builder clearSubscriptionIdentifiers() {
            subscriptionIdentifiers.clear();
            return this;
        }

        public Builder addSubscriptionIdentifier(int identifier) {
            subscriptionIdentifiers.add(identifier);
            return this;
        }

        public Builder addUserProperty(String name, String value) {
            userProperties.add(new UserProperty(name, value));
            return this;
        }

        public Builder addUserProperty(UserProperty property) {
            userProperties.add(property);
            return this;
        }

        public Builder clearUserProperties() {
            userProperties.clear();
            return this;
        }

        public boolean has(PropertyId id) { return values.containsKey(id); }

        public Properties build() {
            if (values.isEmpty() && subscriptionIdentifiers.isEmpty() && userProperties.isEmpty()) return NONE;
            return new Properties(new EnumMap<>(values), List.copyOf(subscriptionIdentifiers),
                    List.copyOf(userProperties));
        }
    }
}
