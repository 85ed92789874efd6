package io.pekquitto.protocol;

import java.util.Objects;
import java.util.Optional;

/**
 * CONNECT (3.1). {@code cleanStart} is Clean Session in 3.1.1. {@code keepAlive} is in seconds, 0 to
 * 65,535. The user name and password are optional as the flags say; 3.1.1 forbids a password
 * without a user name ([MQTT-3.1.2-22]), MQTT 5 allows it. {@code bridge}: the top bit of the protocol
 * level was set (0x83, 0x84), as Mosquitto's bridges announce themselves (mosquitto.conf {@code try_private});
 * 3.1 and 3.1.1 only, as Mosquitto sends it: an MQTT 5 bridge asks for No Local itself.
 */
public record Connect(
        ProtocolVersion version,
        String clientId,
        boolean cleanStart,
        int keepAlive,
        Optional<Will> will,
        Optional<String> username,
        Optional<Binary> password,
        Properties properties,
        boolean bridge) implements Packet {

    /** A CONNECT from a client that is not a bridge. */
    public Connect(ProtocolVersion version, String clientId, boolean cleanStart, int keepAlive, Optional<Will> will,
                   Optional<String> username, Optional<Binary> password, Properties properties) {
        this(version, clientId, cleanStart, keepAlive, will, username, password, properties, false);
    }

    public Connect {
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(will, "will");
        Objects.requireNonNull(username, "username");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(properties, "properties");
        if (keepAlive < 0 || keepAlive > 0xFFFF) throw new IllegalArgumentException("keepAlive " + keepAlive);
        if (bridge && version.hasProperties()) throw new IllegalArgumentException("a bridge bit in MQTT 5");
    }

    @Override
    public PacketType type() { return PacketType.CONNECT; }
}
