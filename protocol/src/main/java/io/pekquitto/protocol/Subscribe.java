package io.pekquitto.protocol;

import java.util.List;
import java.util.Objects;

/** SUBSCRIBE (3.8): at least one subscription ([MQTT-3.8.3-3]). */
public record Subscribe(int packetId, List<Subscription> subscriptions, Properties properties) implements Packet {
    public Subscribe {
        Objects.requireNonNull(properties, "properties");
        subscriptions = List.copyOf(subscriptions);
        if (packetId < 1 || packetId > 0xFFFF) throw new IllegalArgumentException("packet id " + packetId);
        if (subscriptions.isEmpty()) throw new IllegalArgumentException("SUBSCRIBE without subscriptions");
    }

    @Override
    public PacketType type() { return PacketType.SUBSCRIBE; }
}
