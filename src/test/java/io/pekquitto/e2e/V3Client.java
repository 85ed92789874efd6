package io.pekquitto.e2e;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttCallback;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.eclipse.paho.mqttv5.common.packet.MqttProperties;

/** An Eclipse Paho MQTT 3.1.1 client, connected, with its received messages in an {@link Inbox}. */
public final class V3Client extends PahoClient {
    private final MqttClient paho;
    private final CompletableFuture<Throwable> connectionLost;
    private final boolean sessionPresent;

    private V3Client(MqttClient paho, Inbox inbox, CompletableFuture<Throwable> connectionLost, boolean sessionPresent) {
        super(inbox, new Calls(paho.getClientId(), paho::isConnected, () -> paho.disconnect(WAIT_MILLIS),
                () -> paho.disconnect(0), () -> paho.disconnectForcibly(0, WAIT_MILLIS, false), () -> paho.close(true)));
        this.paho = paho;
        this.connectionLost = connectionLost;
        this.sessionPresent = sessionPresent;
    }

    /** Connects with Clean Session 1 unless {@code configure} changes it. */
    public static V3Client connect(int port, String clientId, Consumer<MqttConnectOptions> configure) throws MqttException {
        return connect(serverUri(port), clientId, configure);
    }

    /** Connects to {@code serverUri}: {@code tcp://}, {@code ssl://}, {@code ws://} or {@code wss://}. */
    public static V3Client connect(String serverUri, String clientId, Consumer<MqttConnectOptions> configure) throws MqttException {
        var paho = new MqttClient(serverUri, clientId, new MemoryPersistence());
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

    @Override
    public void publish(String topic, byte[] payload, int qos, boolean retain) throws MqttException {
        paho.publish(topic, payload, qos, retain);
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
}
