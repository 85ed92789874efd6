package io.pekquitto.shards.client;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.session.DelayedWill;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import java.util.Objects;
import java.util.Optional;

/**
 * How an {@link InProcessClient} connects: what a CONNECT says, less what has no meaning in process
 * (keep alive, password, protocol level: it behaves as an MQTT 5 client).
 *
 * <pre>{@code
 * var options = ConnectOptions.clientId("thermostat").withSessionExpiryInterval(3600).withUsername("thermostat");
 * }</pre>
 *
 * @param clientId              the client identifier; empty: the broker assigns one ({@link InProcessClient.Connected#clientId()})
 * @param cleanStart            start a new session, ending one the client id had ([MQTT-3.1.2-4])
 * @param sessionExpiryInterval seconds the session outlives the client (3.1.2.11.2), capped by {@code max-session-expiry};
 *                              0 ends it with the client; 4,294,967,295 never
 * @param will                  the message published when the client ends otherwise than by {@link InProcessClient.Disconnect#NORMAL}
 * @param username              the user the ACLs judge the client as; empty: the client is trusted code and no ACL applies.
 *                              No password: the embedder vouches for the user
 */
public record ConnectOptions(String clientId, boolean cleanStart, long sessionExpiryInterval, Optional<Will> will,
                             Optional<String> username) {

    /** A Will Message (3.1.3.2): published {@code delaySeconds} after the client ends, or when its session ends if sooner. */
    public record Will(String topic, Binary payload, QoS qos, boolean retain, MessageProperties properties, long delaySeconds) {
        public Will {
            Objects.requireNonNull(topic, "topic");
            Objects.requireNonNull(payload, "payload");
            Objects.requireNonNull(qos, "qos");
            Objects.requireNonNull(properties, "properties");
            requireFourByteInteger(delaySeconds, "Will Delay Interval");
        }

        public Will(String topic, Binary payload, QoS qos, boolean retain) {
            this(topic, payload, qos, retain, MessageProperties.NONE, 0);
        }

        /** The will as published at {@code now}, with its delay. */
        DelayedWill at(long now) {
            return new DelayedWill(Message.received(topic, payload, qos, retain, properties.toProperties(), now), delaySeconds);
        }
    }

    public ConnectOptions {
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(will, "will");
        Objects.requireNonNull(username, "username");
        requireFourByteInteger(sessionExpiryInterval, "Session Expiry Interval");
    }

    /** Clean Start, a session that ends with the client, no will, trusted. */
    public static ConnectOptions clientId(String clientId) {
        return new ConnectOptions(clientId, true, 0, Optional.empty(), Optional.empty());
    }

    /** Resume the client id's session if there is one (Clean Start 0). */
    public ConnectOptions resumingSession() {
        return new ConnectOptions(clientId, false, sessionExpiryInterval, will, username);
    }

    public ConnectOptions withSessionExpiryInterval(long seconds) {
        return new ConnectOptions(clientId, cleanStart, seconds, will, username);
    }

    public ConnectOptions withWill(Will newWill) {
        return new ConnectOptions(clientId, cleanStart, sessionExpiryInterval, Optional.of(newWill), username);
    }

    public ConnectOptions withUsername(String user) {
        return new ConnectOptions(clientId, cleanStart, sessionExpiryInterval, will, Optional.of(user));
    }

    static void requireFourByteInteger(long value, String name) {
        if (value < 0 || value > Session.NEVER_EXPIRES) {
            throw new IllegalArgumentException(name + " must be 0..4294967295 seconds, not " + value);
        }
    }
}
