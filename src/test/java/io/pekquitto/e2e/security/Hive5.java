package io.pekquitto.e2e.security;

import com.hivemq.client.mqtt.MqttClient;
import com.hivemq.client.mqtt.MqttClientSslConfig;
import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5ConnAckException;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubAckException;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5PubRecException;
import com.hivemq.client.mqtt.mqtt5.exceptions.Mqtt5SubAckException;
import com.hivemq.client.mqtt.mqtt5.message.auth.Mqtt5SimpleAuth;
import com.hivemq.client.mqtt.mqtt5.message.auth.Mqtt5SimpleAuthBuilder;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5PublishResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The HiveMQ MQTT 5 client as the security tests use it: every answer read as the reason code the
 * broker sent, so a test can say "0x87" rather than "it failed".
 */
final class Hive5 implements AutoCloseable {
    static final Duration RECEIVE = Duration.ofSeconds(5);
    static final Duration QUIET = Duration.ofMillis(400);

    private final Mqtt5BlockingClient client;
    private final Mqtt5BlockingClient.Mqtt5Publishes inbox;

    private Hive5(Mqtt5BlockingClient client) {
        this.client = client;
        this.inbox = client.publishes(MqttGlobalPublishFilter.ALL);
    }

    /** A builder for {@code clientId} at 127.0.0.1:{@code port}, TLS when {@code ssl} is given. */
    static Mqtt5BlockingClient build(int port, String clientId, Optional<MqttClientSslConfig> ssl) {
        var builder = MqttClient.builder().useMqttVersion5().identifier(clientId).serverHost("127.0.0.1").serverPort(port);
        return (ssl.isPresent() ? builder.sslConfig(ssl.get()) : builder).buildBlocking();
    }

    /** Connects (Clean Start, no session expiry) and returns the client; throws if refused. */
    static Hive5 connect(int port, String clientId, Optional<String> username, Optional<String> password) {
        return connect(build(port, clientId, Optional.empty()), username, password);
    }

    static Hive5 connect(Mqtt5BlockingClient client, Optional<String> username, Optional<String> password) {
        var connect = client.connectWith().cleanStart(true);
        Mqtt5SimpleAuthBuilder builder = Mqtt5SimpleAuth.builder();
        Mqtt5SimpleAuthBuilder.Complete auth = null;
        if (username.isPresent()) auth = builder.username(username.get());
        if (password.isPresent()) auth = (auth != null ? auth : builder).password(password.get().getBytes(StandardCharsets.UTF_8));
        if (auth != null) connect = connect.simpleAuth(auth.build());
        connect.send();
        return new Hive5(client);
    }

    /** The CONNACK reason code of a CONNECT the broker is expected to refuse. */
    static int refusal(int port, String clientId, Optional<String> username, Optional<String> password) {
        try (var ignored = connect(port, clientId, username, password)) {
            return 0;
        } catch (Mqtt5ConnAckException e) {
            return e.getMqttMessage().getReasonCode().getCode();
        }
    }

    /** Publishes and returns the PUBACK's (QoS 1) or PUBREC's (QoS 2) reason code; 0 at QoS 0. */
    int publish(String topic, int qos, String payload) {
        try {
            var result = client.publishWith().topic(topic).qos(MqttQos.fromCode(qos))
                    .payload(payload.getBytes(StandardCharsets.UTF_8)).send();
            if (result instanceof Mqtt5PublishResult.Mqtt5Qos1Result qos1) return qos1.getPubAck().getReasonCode().getCode();
            if (result instanceof Mqtt5PublishResult.Mqtt5Qos2Result qos2) return qos2.getPubRec().getReasonCode().getCode();
            return 0;
        } catch (Mqtt5PubAckException e) {  // the blocking API throws what an error code says
            return e.getMqttMessage().getReasonCode().getCode();
        } catch (Mqtt5PubRecException e) {
            return e.getMqttMessage().getReasonCode().getCode();
        }
    }

    /** Subscribes at QoS 1 and returns the SUBACK's reason code: the granted QoS, or an error. */
    int subscribe(String filter) {
        try {
            return client.subscribeWith().topicFilter(filter).qos(MqttQos.AT_LEAST_ONCE).send().getReasonCodes().get(0).getCode();
        } catch (Mqtt5SubAckException e) {
            return e.getMqttMessage().getReasonCodes().get(0).getCode();
        }
    }

    Mqtt5Publish next() throws InterruptedException {
        return inbox.receive(RECEIVE.toMillis(), TimeUnit.MILLISECONDS)
                .orElseThrow(() -> new AssertionError("no message within " + RECEIVE));
    }

    Optional<Mqtt5Publish> quiet() throws InterruptedException {
        return inbox(QUIET);
    }

    /** The next message within {@code wait}, if one comes. */
    Optional<Mqtt5Publish> inbox(Duration wait) throws InterruptedException {
        return inbox.receive(wait.toMillis(), TimeUnit.MILLISECONDS);
    }

    static String text(Mqtt5Publish publish) {
        return new String(publish.getPayloadAsBytes(), StandardCharsets.UTF_8);
    }

    boolean isConnected() {
        return client.getState().isConnected();
    }

    @Override
    public void close() {
        inbox.close();
        if (client.getState().isConnected()) {
            client.toAsync().disconnect().orTimeout(5, TimeUnit.SECONDS).exceptionally(e -> null).join();
        }
    }
}
