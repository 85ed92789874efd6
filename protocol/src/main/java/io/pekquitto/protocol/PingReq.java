package io.pekquitto.protocol;

/** PINGREQ (3.12). */
public record PingReq() implements Packet {
    public static final PingReq INSTANCE = new PingReq();

    @Override
    public PacketType type() { return PacketType.PINGREQ; }
}
