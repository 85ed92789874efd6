package io.pekquitto.shards.connection;

import io.pekquitto.auth.ClientIdentity;
import io.pekquitto.protocol.ProtocolVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A line for each client that connects and disconnects, in Mosquitto's words so that what operators
 * grep for still matches: {@code New client connected from 10.0.0.7:51234 as sensor-1 (p5, c1, k60,
 * u'alice').} ({@code New bridge connected ...} for a bridge, {@link io.pekquitto.protocol.Connect#bridge()})
 * and {@code Client sensor-1 [10.0.0.7:51234] disconnected: keep-alive timeout.} ({@code p}: 1 for MQTT 3.1,
 * 2 for 3.1.1, 5 for 5.0, as Mosquitto counts; {@code c}: Clean Start; {@code k}: the keep-alive granted, in
 * seconds). At INFO on the logger {@code io.pekquitto.connections}, or at DEBUG
 * with {@code log.connection-messages = false}.
 */
final class ConnectionLog {
    static final Logger LOG = LoggerFactory.getLogger("io.pekquitto.connections");

    private ConnectionLog() {}

    static void connected(boolean enabled, ClientIdentity client, ProtocolVersion version, boolean bridge,
                          boolean cleanStart, int keepAlive) {
        if (!isOn(enabled)) return;
        var line = (bridge ? "New bridge" : "New client") + " connected from " + address(client) + " as "
                + client.clientId() + " (p" + level(version) + ", c" + (cleanStart ? 1 : 0) + ", k" + keepAlive
                + client.username().map(user -> ", u'" + user + "'").orElse("") + ").";
        write(enabled, line);
    }

    /** {@code why}: what ended it, e.g. "client DISCONNECT", "connection lost", "keep-alive timeout". */
    static void disconnected(boolean enabled, ClientIdentity client, String why) {
        if (!isOn(enabled)) return;
        write(enabled, "Client " + client.clientId() + " [" + address(client) + "] disconnected: " + why + ".");
    }

    /** Whether a line would be written: at INFO when {@code enabled}, else at DEBUG. */
    private static boolean isOn(boolean enabled) {
        return enabled ? LOG.isInfoEnabled() : LOG.isDebugEnabled();
    }

    private static void write(boolean enabled, String line) {
        if (enabled) {
            LOG.info(line);
        } else {
            LOG.debug(line);
        }
    }

    private static String address(ClientIdentity client) {
        return client.address().getHostString() + ":" + client.address().getPort();
    }

    private static int level(ProtocolVersion version) {
        return switch (version) {
            case MQTT_3_1 -> 1;
            case MQTT_3_1_1 -> 2;
            case MQTT_5 -> 5;
        };
    }
}
