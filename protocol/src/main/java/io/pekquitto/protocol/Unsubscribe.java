package io.pekquitto.protocol;

import java.util.List;
import java.util.Objects;

/** UNSUBSCRIBE (3.10): at least one topic filter ([MQTT-3.10.3-2]), kept as received text. */
public record Unsubscribe(int packetId, List<String> topicFilters, Properties properties) implements Packet {
    public Unsubscribe {
        Objects.requireNonNull(properties, "properties");
        topicFilters = List.copyOf(topicFilters);
        if (packetId < 1 || packetId > 0xFFFF) throw new IllegalArgumentException("packet id " + packetId);
        if (topicFilters.isEmpty()) throw new IllegalArgumentException("UNSUBSCRIBE without topic filters");
    }

    @Override
    public PacketType type() { return PacketType.UNSUBSCRIBE; }
}
