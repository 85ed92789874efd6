package io.pekquitto.e2e;

import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What the version-independent tests need of a Paho client: {@link V3Client} for protocol level 4
 * (MQTT 3.1.1) and {@link V5Client} for level 5, so one test body runs against both. Paho's two
 * {@code MqttClient} classes have the same connection methods but no common type: each wrapper binds
 * a few of them as {@link Calls}, and what the wrappers do alike with them (disconnect, drop, close) is
 * here. Every blocking call waits at most 5 s; no automatic reconnect.
 */
public abstract sealed class PahoClient implements AutoCloseable permits V3Client, V5Client {
    static final int WAIT_MILLIS = 5_000;
    /** Paho logs through java.util.logging, some of it per message at INFO; held here so the level sticks. */
    private static final Logger PAHO_LOG = Logger.getLogger("org.eclipse.paho");

    static {
        PAHO_LOG.setLevel(Level.WARNING);
    }

    /** A call to Paho that may throw its (v3 or v5) {@code MqttException}. */
    @FunctionalInterface
    interface Call {
        void run() throws Exception;
    }

    /**
     * The Paho calls that {@link #disconnect}, {@link #dropConnection} and {@link #close} are made of,
     * bound to one client by its wrapper.
     */
    record Calls(String clientId, BooleanSupplier isConnected, Call disconnect, Call disconnectNow, Call dropConnection,
                 Call release) {}

    private final Inbox inbox;
    private final Calls calls;

    PahoClient(Inbox inbox, Calls calls) {
        this.inbox = inbox;
        this.calls = calls;
    }

    /** Connects a Paho client of the given protocol level ({@link RawClient#V311} or {@link RawClient#V5}), clean. */
    public static PahoClient connect(int version, int port, String clientId) throws Exception {
        return switch (version) {
            case RawClient.V311 -> V3Client.connect(port, clientId, options -> {});
            case RawClient.V5 -> V5Client.connect(port, clientId, options -> {});
            default -> throw new IllegalArgumentException("protocol level " + version);
        };
    }

    /** The server URI of a broker on this machine. */
    static String serverUri(int port) {
        return "tcp://127.0.0.1:" + port;
    }

    /** Subscribes and returns the granted QoS or reason code. */
    public abstract int subscribe(String topicFilter, int qos) throws Exception;

    public abstract void unsubscribe(String topicFilter) throws Exception;

    /** Publishes and, for QoS 1 and 2, waits for the handshake to complete. */
    public abstract void publish(String topic, byte[] payload, int qos, boolean retain) throws Exception;

    public void publish(String topic, String payload, int qos, boolean retain) throws Exception {
        publish(topic, payload.getBytes(StandardCharsets.UTF_8), qos, retain);
    }

    public Inbox inbox() {
        return inbox;
    }

    public abstract boolean sessionPresent();

    public boolean isConnected() {
        return calls.isConnected().getAsBoolean();
    }

    /** A normal DISCONNECT, waiting for the work in flight up to 5 s. */
    public void disconnect() throws Exception {
        calls.disconnect().run();
    }

    /** Closes the socket without sending DISCONNECT. */
    public void dropConnection() throws Exception {
        calls.dropConnection().run();
    }

    /**
     * A normal DISCONNECT if still connected, then the client's resources freed; a failure to free
     * them is unchecked. (Paho's {@code disconnectForcibly} with a DISCONNECT waits its whole timeout
     * for a token that only the normal path completes, so it is not used here.)
     */
    @Override
    public final void close() {
        try {
            if (isConnected()) calls.disconnectNow().run();
        } catch (RuntimeException e) {
            throw e;  // a bug, not the end of a connection
        } catch (Exception e) {
            // Paho's MqttException: the connection ended meanwhile (the broker closed it), nothing left to disconnect.
        }
        try {
            calls.release().run();
        } catch (Exception e) {
            throw new IllegalStateException("Paho client " + calls.clientId() + " did not close", e);
        }
    }
}
