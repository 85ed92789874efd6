package io.pekquitto.protocol;

import java.util.Objects;

/**
 * CONNACK (3.2). The reason is an MQTT 5 code; for 3.1.1 the encoder writes
 * {@link ReasonCode#connAckReturnCodeV3()}.
 */
public record ConnAck(boolean sessionPresent, ReasonCode reason, Properties properties) implements Packet {
    public ConnAck {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(properties, "properties");
        if (!reason.isAllowedIn(PacketType.CONNACK)) throw new IllegalArgumentException(reason + " in CONNACK");
    }

    @Override
    public PacketType type() { return PacketType.CONNACK; }
}
