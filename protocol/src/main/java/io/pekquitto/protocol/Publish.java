package io.pekquitto.protocol;

import java.util.Objects;

/**
 * PUBLISH (3.3). {@code packetId} is 0 for QoS 0 and 1..65,535 otherwise ([MQTT-2.2.1-2]). The topic may
 * be empty in MQTT 5 when a Topic Alias property stands for it.
 */
public record Publish(
        String topic,
        Binary payload,
        QoS qos,
        boolean retain,
        boolean dup,
        int packetId,
        Properties properties) implements Packet {

    public Publish {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(qos, "qos");
        Objects.requireNonNull(properties, "properties");
        if (qos == QoS.AT_MOST_ONCE ? packetId != 0 : packetId < 1 || packetId > 0xFFFF) {
            throw new IllegalArgumentException("packet id " + packetId + " with " + qos);
        }
    }

    /** A QoS 0 publish with no properties. */
    public static Publish atMostOnce(String topic, Binary payload, boolean retain) {
        return new Publish(topic, payload, QoS.AT_MOST_ONCE, retain, false, 0, Properties.NONE);
    }

    @Override
    public PacketType type() { return PacketType.PUBLISH; }
}
