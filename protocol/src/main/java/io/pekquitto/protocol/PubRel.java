package io.pekquitto.protocol;

import java.util.Objects;

/** PUBREL (3.6): the release of a QoS 2 PUBLISH, answering PUBREC. In 3.1.1 the reason is always SUCCESS and there are no properties. */
public record PubRel(int packetId, ReasonCode reason, Properties properties) implements Packet {
    public PubRel {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(properties, "properties");
        if (packetId < 1 || packetId > 0xFFFF) throw new IllegalArgumentException("packet id " + packetId);
        if (!reason.isAllowedIn(PacketType.PUBREL)) throw new IllegalArgumentException(reason + " in PUBREL");
    }

    /** The success case, with no properties. */
    public PubRel(int packetId) {
        this(packetId, ReasonCode.SUCCESS, Properties.NONE);
    }

    @Override
    public PacketType type() { return PacketType.PUBREL; }
}
