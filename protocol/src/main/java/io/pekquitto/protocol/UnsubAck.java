package io.pekquitto.protocol;

import java.util.List;
import java.util.Objects;

/**
 * UNSUBACK (3.11). MQTT 5 carries one reason code per topic filter; 3.1.1 carries none, so a decoded
 * 3.1.1 UNSUBACK has an empty list and the 3.1.1 encoder ignores the list.
 */
public record UnsubAck(int packetId, List<ReasonCode> reasons, Properties properties) implements Packet {
    public UnsubAck {
        Objects.requireNonNull(properties, "properties");
        reasons = List.copyOf(reasons);
        if (packetId < 1 || packetId > 0xFFFF) throw new IllegalArgumentException("packet id " + packetId);
        for (var reason : reasons) {
            if (!reason.isAllowedIn(PacketType.UNSUBACK)) throw new IllegalArgumentException(reason + " in UNSUBACK");
        }
    }

    @Override
    public PacketType type() { return PacketType.UNSUBACK; }
}
