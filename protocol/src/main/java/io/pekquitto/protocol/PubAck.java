package io.pekquitto.protocol;

import java.util.Objects;

/** PUBACK (3.4): the answer to a QoS 1 PUBLISH. In 3.1.1 the reason is always SUCCESS and there are no properties. */
public record PubAck(int packetId, ReasonCode reason, Properties properties) implements Packet {
    public PubAck {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(properties, "properties");
        if (packetId < 1 || packetId > 0xFFFF) throw new IllegalArgumentException("packet id " + packetId);
        if (!reason.isAllowedIn(PacketType.PUBACK)) throw new IllegalArgumentException(reason + " in PUBACK");
    }

    /** The success case, with no properties. */
    public PubAck(int packetId) {
        this(packetId, ReasonCode.SUCCESS, Properties.NONE);
    }

    @Override
    public PacketType type() { return PacketType.PUBACK; }
}
