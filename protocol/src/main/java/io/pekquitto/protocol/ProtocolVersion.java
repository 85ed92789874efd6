package io.pekquitto.protocol;

/** The MQTT protocol versions the broker speaks, identified by the CONNECT protocol level (3.1.2.2). */
public enum ProtocolVersion {
    MQTT_3_1(3, "MQIsdp"),
    MQTT_3_1_1(4, "MQTT"),
    MQTT_5(5, "MQTT");

    private final int level;
    private final String protocolName;

    ProtocolVersion(int level, String protocolName) {
        this.level = level;
        this.protocolName = protocolName;
    }

    public int level() { return level; }

    public String protocolName() { return protocolName; }

    /** MQTT 5 carries properties and reason codes in most packets; 3.1 and 3.1.1 do not. */
    public boolean hasProperties() { return this == MQTT_5; }
}
