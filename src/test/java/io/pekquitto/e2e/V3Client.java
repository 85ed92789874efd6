package io.pekquitto.e2e;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttCallback;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.eclipse.paho.mqttv5.common.packet.MqttProperties;

/**
 * An Eclipse Paho MQTT 3.1.1 client, connected, with its received messages in an {@link Inbox}.
 * Every blocking call waits at most 5 s; no automatic reconnect.
 */
public final class V3Client implements PahoClient {
    private static final int WAIT_MILLIS = 5_000;
    /** Paho logs through java.util.logging, some of it per message at INFO; held here so the level sticks. */
    private static final Logger PAHO_LOG = Logger.getLogger("org.eclipse.paho");

    static {
        PAHO_LOG.setLevel(Level.WARNING);
    }

    private final MqttClient paho;
    private final Inbox inbox;
    private final CompletableFuture<Throwable> connectionLost;
    private final boolean sessionPresent;

    private V3Client(MqttClient paho, Inbox inbox, CompletableFuture<Throwable> connectionLost, boolean sessionPresent) {
        this.paho = paho;
        this.inbox = inbox;
        this.connectionLost = connectionLost;
        this.sessionPresent = sessionPresent;
    }

    /** Connects with Clean Session 1. */
    public static V3Client connect(int port, String clientId) throws MqttException {
        return connect(port, clientId, options -> {});
    }

    /** Connects with Clean Session 1 unless {@code configure} changes it. */
    public static V3Client connect(int port, String clientId, Consumer<MqttConnectOptions> configure) throws MqttException {
        var paho = new MqttClient("tcp://127.0.0.1:" + port, clientId, new MemoryPersistence());
        paho.setTimeToWait(WAIT_MILLIS);
        var inbox = new Inbox();
        var lost = new CompletableFuture<Throwable>();
        // The callback is in place before CONNECT, so messages queued in a resumed session are caught.
        paho.setCallback(new MqttCallback() {
            @Override public void connectionLost(Throwable cause) { lost.complete(cause); }

            @Override public void messageArrived(String topic, MqttMessage message) {
                inbox.add(new Inbox.Message(topic, message.getPayload(), message.getQos(), message.isRetained(),
                        message.isDuplicate(), new MqttProperties()));
            }

            @Override public void deliveryComplete(IMqttDeliveryToken token) {}
        });
        var options = new MqttConnectOptions();
        options.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
        options.setCleanSession(true);
        options.setConnectionTimeout(5);
        options.setKeepAliveInterval(30);
        // Paho 1.2.5 marks a synchronous publish complete before it lowers its in-flight count, so a
        // fast broker makes back-to-back publishes fail with "Too many publishes in progress" at the
        // default of 10; the tests bound their own windows.
        options.setMaxInflight(1000);
        configure.accept(options);
        var token = paho.connectWithResult(options);
        return new V3Client(paho, inbox, lost, token.getSessionPresent());
    }

    /** Subscribes and returns the granted QoS (0x80 for a failure). */
    @Override
    public int subscribe(String topicFilter, int qos) throws MqttException {
        var token = paho.subscribeWithResponse(new String[] {topicFilter}, new int[] {qos});
        return token.getGrantedQos()[0];
    }

    @Override
    public void unsubscribe(String topicFilter) throws MqttException {
        paho.unsubscribe(topicFilter);
    }

    /** Publishes and, for QoS 1 and 2, waits for the handshake to complete. */
    @Override
    public void publish(String topic, byte[] payload, int qos, boolean retain) throws MqttException {
        paho.publish(topic, payload, qos, retain);
    }


    @Override
    public Inbox inbox() {
        return inbox;
    }

    @Override
    public boolean sessionPresent() {
        return sessionPresent;
    }

    /** Completes when Paho notices the connection is gone without having disconnected it. */
    public CompletableFuture<Throwable> connectionLost() {
        return connectionLost;
    }

    public MqttClient paho() {
        return paho;
    }

    /** A normal DISCONNECT. */
    @Override
    public void disconnect() throws MqttException {
        paho.disconnect(WAIT_MILLIS);
    }

    /** Closes the socket without sending DISCONNECT. */
    @Override
    public void dropConnection() throws MqttException {
        paho.disconnectForcibly(0, WAIT_MILLIS, false);
    }

    /**
     * A normal DISCONNECT if still connected, then the client's resources freed. (Paho's
     * {@code disconnectForcibly} with a DISCONNECT waits its whole timeout for a token that only the
     * normal path completes, so it is not used here.)
     */
    @Override
    public void close() {
        try {
            if (paho.isConnected()) paho.disconnect(0);
        } catch (MqttException e) {
            // The connection ended meanwhile (the broker closed it): nothing left to disconnect.
        }
        try {
            paho.close(true);
        } catch (MqttException e) {
            throw new IllegalStateException("Paho client " + paho.getClientId() + " did not close", e);
        }
    }
}
