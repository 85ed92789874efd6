package io.pekquitto.shards.client;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.UserProperty;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The MQTT 5 properties an application message carries (3.3.2.3), as an in-process client publishes
 * and receives them: Payload Format Indicator, Message Expiry Interval (seconds; on a received message,
 * what is left of it), Content Type, Response Topic, Correlation Data and User Properties. Socket
 * clients of MQTT 5 see them as PUBLISH properties; 3.1.1 clients get the payload alone.
 *
 * <pre>{@code
 * var properties = MessageProperties.NONE.withContentType("application/json").withUserProperty("unit", "celsius");
 * }</pre>
 *
 * @param utf8Payload           the payload is UTF-8 text (Payload Format Indicator 1); checked when published
 * @param messageExpiryInterval seconds the message lives, 0 to 4,294,967,295; empty: it does not expire
 */
public record MessageProperties(boolean utf8Payload, Optional<Long> messageExpiryInterval, Optional<String> contentType,
                                Optional<String> responseTopic, Optional<Binary> correlationData,
                                List<UserProperty> userProperties) {

    /** No properties. */
    public static final MessageProperties NONE = new MessageProperties(false, Optional.empty(), Optional.empty(),
            Optional.empty(), Optional.empty(), List.of());

    public MessageProperties {
        Objects.requireNonNull(messageExpiryInterval, "messageExpiryInterval");
        Objects.requireNonNull(contentType, "contentType");
        Objects.requireNonNull(responseTopic, "responseTopic");
        Objects.requireNonNull(correlationData, "correlationData");
        userProperties = List.copyOf(userProperties);
        messageExpiryInterval.ifPresent(seconds -> ConnectOptions.requireFourByteInteger(seconds, "Message Expiry Interval"));
    }

    public MessageProperties withUtf8Payload() {
        return new MessageProperties(true, messageExpiryInterval, contentType, responseTopic, correlationData, userProperties);
    }

    public MessageProperties withMessageExpiryInterval(long seconds) {
        return new MessageProperties(utf8Payload, Optional.of(seconds), contentType, responseTopic, correlationData, userProperties);
    }

    public MessageProperties withContentType(String type) {
        return new MessageProperties(utf8Payload, messageExpiryInterval, Optional.of(type), responseTopic, correlationData, userProperties);
    }

    public MessageProperties withResponseTopic(String topic) {
        return new MessageProperties(utf8Payload, messageExpiryInterval, contentType, Optional.of(topic), correlationData, userProperties);
    }

    public MessageProperties withCorrelationData(Binary data) {
        return new MessageProperties(utf8Payload, messageExpiryInterval, contentType, responseTopic, Optional.of(data), userProperties);
    }

    /** These properties and one more User Property (a name may appear more than once). */
    public MessageProperties withUserProperty(String name, String value) {
        var more = new ArrayList<>(userProperties);
        more.add(new UserProperty(name, value));
        return new MessageProperties(utf8Payload, messageExpiryInterval, contentType, responseTopic, correlationData, more);
    }

    /** As a PUBLISH carries them (a bridge's to its remote, too). */
    public Properties toProperties() {
        if (equals(NONE)) return Properties.NONE;  // most messages, a bridge's per message: no builder
        var builder = Properties.builder();
        if (utf8Payload) builder.set(PropertyId.PAYLOAD_FORMAT_INDICATOR, 1);
        messageExpiryInterval.ifPresent(seconds -> builder.set(PropertyId.MESSAGE_EXPIRY_INTERVAL, seconds));
        contentType.ifPresent(type -> builder.set(PropertyId.CONTENT_TYPE, type));
        responseTopic.ifPresent(topic -> builder.set(PropertyId.RESPONSE_TOPIC, topic));
        correlationData.ifPresent(data -> builder.set(PropertyId.CORRELATION_DATA, data));
        userProperties.forEach(builder::addUserProperty);
        return builder.build();
    }

    /**
     * The message properties of a PUBLISH; the Subscription Identifiers are left out: an in-process
     * client's are its own bookkeeping (which subscriber gets the message), not the application's.
     */
    public static MessageProperties of(Properties properties) {
        if (properties.isEmpty()) return NONE;
        return new MessageProperties(properties.payloadFormatIndicator().orElse(0) == 1,
                properties.messageExpiryInterval(), properties.contentType(), properties.responseTopic(),
                properties.correlationData(), properties.userProperties());
    }
}
