package io.pekquitto.e2e;

import java.nio.charset.StandardCharsets;

/**
 * What the version-independent tests need of a Paho client: {@link V3Client} for protocol level 4
 * (MQTT 3.1.1) and {@link V5Client} for level 5, so one test body runs against both.
 */
public interface PahoClient extends AutoCloseable {

    /** Connects a Paho client of the given protocol level ({@link RawClient#V311} or {@link RawClient#V5}), clean. */
    static PahoClient connect(int version, int port, String clientId) throws Exception {
        return switch (version) {
            case RawClient.V311 -> V3Client.connect(port, clientId);
            case RawClient.V5 -> V5Client.connect(port, clientId);
            default -> throw new IllegalArgumentException("protocol level " + version);
        };
    }

    /** Subscribes and returns the granted QoS or reason code. */
    int subscribe(String topicFilter, int qos) throws Exception;

    void unsubscribe(String topicFilter) throws Exception;

    /** Publishes and, for QoS 1 and 2, waits for the handshake to complete. */
    void publish(String topic, byte[] payload, int qos, boolean retain) throws Exception;

    default void publish(String topic, String payload, int qos, boolean retain) throws Exception {
        publish(topic, payload.getBytes(StandardCharsets.UTF_8), qos, retain);
    }

    Inbox inbox();

    boolean sessionPresent();

    /** A normal DISCONNECT. */
    void disconnect() throws Exception;

    /** Closes the socket without sending DISCONNECT. */
    void dropConnection() throws Exception;

    /** A normal DISCONNECT if still connected, then the client freed; a failure to free it is unchecked. */
    @Override
    void close();
}
