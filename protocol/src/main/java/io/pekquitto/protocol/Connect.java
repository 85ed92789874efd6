package io.pekquitto.protocol;

import java.util.Objects;
import java.util.Optional;

/**
 * CONNECT (3.1). {@code cleanStart} is Clean Session in 3.1.1. {@code keepAlive} is in seconds, 0 to
 * 65,535. The user name and password are optional as the flags say; 3.1.1 forbids a password
 * without a user name ([MQTT-3.1.2-22]), MQTT 5 allows it.
 */
public record Connect(
        ProtocolVersion version,
        String clientId,
        boolean cleanStart,
        int keepAlive,
        Optional<Will> will,
        Optional<String> username,
        Optional<Binary> password,
        Properties properties) implements Packet {

    public Connect {
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(will, "will");
        Objects.requireNonNull(username, "username");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(properties, "properties");
        if (keepAlive < 0 || keepAlive > 0xFFFF) throw new IllegalArgumentException("keepAlive " + keepAlive);
    }

    @Override
    public PacketType type() { return PacketType.CONNECT; }
}
