package io.pekquitto.e2e;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.eclipse.paho.mqttv5.client.IMqttToken;
import org.eclipse.paho.mqttv5.client.MqttCallback;
import org.eclipse.paho.mqttv5.client.MqttClient;
import org.eclipse.paho.mqttv5.client.MqttClientException;
import org.eclipse.paho.mqttv5.client.MqttConnectionOptions;
import org.eclipse.paho.mqttv5.client.MqttDisconnectResponse;
import org.eclipse.paho.mqttv5.client.persist.MemoryPersistence;
import org.eclipse.paho.mqttv5.common.MqttException;
import org.eclipse.paho.mqttv5.common.MqttMessage;
import org.eclipse.paho.mqttv5.common.MqttSubscription;
import org.eclipse.paho.mqttv5.common.packet.MqttProperties;

/** An Eclipse Paho MQTT 5 client, connected, with its received messages in an {@link Inbox}. */
public final class V5Client extends PahoClient {
    private final MqttClient paho;
    private final CompletableFuture<MqttDisconnectResponse> disconnected;
    private final IMqttToken connectToken;

    private V5Client(MqttClient paho, Inbox inbox, CompletableFuture<MqttDisconnectResponse> disconnected,
                     IMqttToken connectToken) {
        super(inbox, new Calls(paho.getClientId(), paho::isConnected, () -> paho.disconnect(WAIT_MILLIS),
                () -> paho.disconnect(0), () -> paho.disconnectForcibly(0, WAIT_MILLIS, false), () -> paho.close(true)));
        this.paho = paho;
        this.disconnected = disconnected;
        this.connectToken = connectToken;
    }

    /**
     * Connects with Clean Start 1 and no Session Expiry Interval (the session ends with the connection)
     * unless {@code configure} changes it.
     */
    public static V5Client connect(int port, String clientId, Consumer<MqttConnectionOptions> configure) throws MqttException {
        return connect(serverUri(port), clientId, configure);
    }

    /** Connects to {@code serverUri}: {@code tcp://}, {@code ssl://}, {@code ws://} or {@code wss://}. */
    public static V5Client connect(String serverUri, String clientId, Consumer<MqttConnectionOptions> configure) throws MqttException {
        var paho = new MqttClient(serverUri, clientId, new MemoryPersistence());
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

    @Override
    public void publish(String topic, byte[] payload, int qos, boolean retain) throws MqttException {
        whenPahoHasRoom(() -> paho.publish(topic, payload, qos, retain));
    }

    public void publish(String topic, MqttMessage message) throws MqttException {
        whenPahoHasRoom(() -> paho.publish(topic, message));
    }

    private interface Publishing {
        void run() throws MqttException;
    }

    /**
     * Paho 1.2.5 (MQTT 5) marks a synchronous publish complete before its callback thread lowers the
     * in-flight count (eclipse-paho/paho.mqtt.java#993): on a loaded machine back-to-back publishes
     * can find the server's Receive Maximum "reached" on the client side alone. Retried for at most 1 s.
     */
    private static void whenPahoHasRoom(Publishing publishing) throws MqttException {
        for (int attempt = 0; ; attempt++) {
            try {
                publishing.run();
                return;
            } catch (MqttException e) {
                if (e.getReasonCode() != MqttClientException.REASON_CODE_MAX_INFLIGHT || attempt == 500) throw e;
                try {
                    Thread.sleep(2);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
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
}
