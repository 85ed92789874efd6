package io.pekquitto.protocol;

/** PINGRESP (3.13). */
public record PingResp() implements Packet {
    public static final PingResp INSTANCE = new PingResp();

    @Override
    public PacketType type() { return PacketType.PINGRESP; }
}
