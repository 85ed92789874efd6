package io.pekquitto.protocol;

import java.util.List;
import java.util.Objects;

/**
 * SUBACK (3.9): one reason code per subscription, in order ([MQTT-3.8.4-6]). For 3.1.1 the encoder
 * writes the granted QoS or 0x80 for any failure.
 */
public record SubAck(int packetId, List<ReasonCode> reasons, Properties properties) implements Packet {
    public SubAck {
        Objects.requireNonNull(properties, "properties");
        reasons = List.copyOf(reasons);
        if (packetId < 1 || packetId > 0xFFFF) throw new IllegalArgumentException("packet id " + packetId);
        for (var reason : reasons) {
            if (!reason.isAllowedIn(PacketType.SUBACK)) throw new IllegalArgumentException(reason + " in SUBACK");
        }
    }

    @Override
    public PacketType type() { return PacketType.SUBACK; }
}
