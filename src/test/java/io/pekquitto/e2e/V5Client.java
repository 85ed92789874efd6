package io.pekquitto.e2e;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.paho.mqttv5.client.IMqttToken;
import org.eclipse.paho.mqttv5.client.MqttCallback;
import org.eclipse.paho.mqttv5.client.MqttClient;
import org.eclipse.paho.mqttv5.client.MqttConnectionOptions;
import org.eclipse.paho.mqttv5.client.MqttDisconnectResponse;
import org.eclipse.paho.mqttv5.client.persist.MemoryPersistence;
import org.eclipse.paho.mqttv5.common.MqttException;
import org.eclipse.paho.mqttv5.common.MqttMessage;
import org.eclipse.paho.mqttv5.common.MqttSubscription;
import org.eclipse.paho.mqttv5.common.packet.MqttProperties;

/**
 * An Eclipse Paho MQTT 5 client, connected, with its received messages in an {@link Inbox}.
 * Every blocking call waits at most 5 s; no automatic reconnect.
 */
public final class V5Client implements PahoClient {
    private static final int WAIT_MILLIS = 5_000;
    /** Paho logs through java.util.logging, some of it per message at INFO; held here so the level sticks. */
    private static final Logger PAHO_LOG = Logger.getLogger("org.eclipse.paho");

    static {
        PAHO_LOG.setLevel(Level.WARNING);
    }

    private final MqttClient paho;
    private final Inbox inbox;
    private final CompletableFuture<MqttDisconnectResponse> disconnected;
    private final IMqttToken connectToken;

    private V5Client(MqttClient paho, Inbox inbox, CompletableFuture<MqttDisconnectResponse> disconnected,
                     IMqttToken connectToken) {
        this.paho = paho;
        this.inbox = inbox;
        this.disconnected = disconnected;
        this.connectToken = connectToken;
    }

    /** Connects with Clean Start 1 and no Session Expiry Interval (the session ends with the connection). */
    public static V5Client connect(int port, String clientId) throws MqttException {
        return connect(port, clientId, options -> {});
    }

    public static V5Client connect(int port, String clientId, Consumer<MqttConnectionOptions> configure) throws MqttException {
        var paho = new MqttClient("tcp://127.0.0.1:" + port, clientId, new MemoryPersistence());
        paho.setTimeToWait(WAIT_MILLIS);
        var inbox = new Inbox();
        var disconnected = new CompletableFuture<MqttDisconnectResponse>();
        // The callback is in place before CONNECT, so messages queued in a resumed session are caught.
        paho.setCallback(new MqttCallback() {
            @Override public void disconnected(MqttDisconnectResponse response) { disconnected.complete(response); }

            @Override public void mqttErrorOccurred(MqttException exception) {}

            @Override public void messageArrived(String topic, MqttMessage message) {
                inbox.add(new Inbox.Message(topic, message.getPayload(), message.getQos(), message.isRetained(),
                        message.isDuplicate(), message.getProperties()));
            }

            @Override public void deliveryComplete(IMqttToken token) {}

            @Override public void connectComplete(boolean reconnect, String serverURI) {}

            @Override public void authPacketArrived(int reasonCode, MqttProperties properties) {}
        });
        var options = new MqttConnectionOptions();
        options.setCleanStart(true);
        options.setConnectionTimeout(5);
        options.setKeepAliveInterval(30);
        configure.accept(options);
        var token = paho.connectWithResult(options);
        return new V5Client(paho, inbox, disconnected, token);
    }

    /** Subscribes and returns the SUBACK reason code. */
    @Override
    public int subscribe(String topicFilter, int qos) throws MqttException {
        return subscribe(new MqttSubscription(topicFilter, qos));
    }

    public int subscribe(MqttSubscription subscription) throws MqttException {
        var token = paho.subscribe(new MqttSubscription[] {subscription});
        return token.getReasonCodes()[0];
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


    public void publish(String topic, MqttMessage message) throws MqttException {
        paho.publish(topic, message);
    }

    @Override
    public Inbox inbox() {
        return inbox;
    }

    @Override
    public boolean sessionPresent() {
        return connectToken.getSessionPresent();
    }

    /** The CONNACK properties (Assigned Client Identifier, Topic Alias Maximum, ...). */
    public MqttProperties connAckProperties() {
        return connectToken.getResponseProperties();
    }

    /** Completes when the server disconnects this client or the connection is lost. */
    public CompletableFuture<MqttDisconnectResponse> disconnected() {
        return disconnected;
    }

    public MqttClient paho() {
        return paho;
    }

    /** A normal DISCONNECT (reason 0x00). */
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
