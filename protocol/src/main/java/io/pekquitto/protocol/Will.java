package io.pekquitto.protocol;

import java.util.Objects;

/** The Will Message of a CONNECT (3.1.2.5, 3.1.3.2-3.1.3.4): published when the connection ends abnormally. */
public record Will(String topic, Binary payload, QoS qos, boolean retain, Properties properties) {
    public Will {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(qos, "qos");
        Objects.requireNonNull(properties, "properties");
    }
}
