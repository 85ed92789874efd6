package io.pekquitto.protocol;

/** MQTT control packet types, by the value of the fixed header's high nibble (2.1.2). */
public enum PacketType {
    CONNECT(1),
    CONNACK(2),
    PUBLISH(3),
    PUBACK(4),
    PUBREC(5),
    PUBREL(6),
    PUBCOMP(7),
    SUBSCRIBE(8),
    SUBACK(9),
    UNSUBSCRIBE(10),
    UNSUBACK(11),
    PINGREQ(12),
    PINGRESP(13),
    DISCONNECT(14),
    AUTH(15);

    private static final PacketType[] BY_VALUE = new PacketType[16];
    static {
        for (var type : values()) BY_VALUE[type.value] = type;
    }

    private final int value;

    PacketType(int value) { this.value = value; }

    public int value() { return value; }

    /** The type for a fixed-header nibble, or null for the reserved value 0. */
    public static PacketType ofNibble(int nibble) { return BY_VALUE[nibble & 0x0F]; }
}
