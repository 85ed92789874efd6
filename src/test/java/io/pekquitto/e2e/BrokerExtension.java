package io.pekquitto.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.ops.Pekquitto;
import io.pekquitto.shards.settings.BrokerSettings;
import java.io.IOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;
import java.util.function.Consumer;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.mqttv5.client.MqttConnectionOptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * A broker for end-to-end tests, always on 127.0.0.1 and a free port, and the clients the tests
 * connect to it. Registered on a static field it serves every test of the class; on an instance field
 * each test gets a broker of its own, which {@link Overrides} on the test method may configure:
 * <pre>{@code
 * @RegisterExtension static final BrokerExtension broker = BrokerExtension.inProcess("shards = 2");
 *
 * try (var subscriber = broker.v5(Names.clientId("sub"))) {
 *     subscriber.subscribe(topic, 1);
 *     broker.publishers().v3().publish(topic, "hello", 1, false);
 * }
 * }</pre>
 * Settings are the root {@code application.conf} with one shard and the test listener over it, then
 * the class's overrides, then the method's: HOCON keys without the {@code pekquitto} root. A helper
 * that knows more of its broker (the shards tests' MeshBroker) extends this class and resets in
 * {@link #started}.
 */
public class BrokerExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    /** Over the defaults for every test broker: one shard (no mesh unless a test asks), the test listener. */
    private static final String TEST_SETTINGS = """
            shards = 1
            listeners = [{host = "127.0.0.1", port = 0}]
            """;

    /** Settings of one test's own broker, over the extension's; needs the extension on an instance field. */
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    public @interface Overrides {
        String value();
    }

    private enum Kind { IN_PROCESS, RUNNABLE_JAR }

    private final Kind kind;
    private final String overrides;

    private Pekquitto pekquitto;
    private RunnableJar jar;
    private int port;
    private Publishers publishers;
    private boolean startedForTest;

    private BrokerExtension(Kind kind, String overrides) {
        this.kind = kind;
        this.overrides = overrides;
    }

    /** An in-process broker with {@code overrides}, for a subclass. */
    protected BrokerExtension(String overrides) {
        this(Kind.IN_PROCESS, overrides);
    }

    /** A broker in this JVM ({@link Pekquitto#start}) on the defaults with one shard. */
    public static BrokerExtension inProcess() {
        return inProcess("");
    }

    /** A broker in this JVM with {@code overrides}, e.g. {@code "shards = 2"}. */
    public static BrokerExtension inProcess(String overrides) {
        return new BrokerExtension(Kind.IN_PROCESS, overrides);
    }

    /** The runnable jar ({@link RunnableJar}) as a child JVM, with {@code overrides} in its {@code -c} file. */
    public static BrokerExtension runnableJar(String overrides) {
        return new BrokerExtension(Kind.RUNNABLE_JAR, overrides);
    }

    /** Called each time the broker has started, before any test uses it. */
    protected void started() {}

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start(overrides);
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        var methodOverrides = context.getTestMethod()
                .flatMap(method -> AnnotationSupport.findAnnotation(method, Overrides.class))
                .map(Overrides::value);
        if (isRunning()) {
            // Registered on a static field: beforeAll has started the class's broker.
            if (methodOverrides.isPresent()) {
                throw new IllegalStateException("@Overrides needs a broker per test: register the BrokerExtension on an instance field");
            }
            return;
        }
        start(overrides + "\n" + methodOverrides.orElse(""));
        startedForTest = true;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        if (startedForTest) {
            startedForTest = false;
            stop();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        stop();
    }

    private boolean isRunning() {
        return pekquitto != null || jar != null;
    }

    private void start(String overrides) throws IOException, InterruptedException {
        var settings = TEST_SETTINGS + overrides;
        switch (kind) {
            case IN_PROCESS -> {
                pekquitto = startInProcess(BrokerSettings.parse(settings));
                port = pekquitto.port();
            }
            case RUNNABLE_JAR -> {
                jar = RunnableJar.start(settings);
                port = jar.port();
            }
        }
        started();
    }

    /** Starts the in-process broker; a subclass may wrap its shards (see {@link Pekquitto#start(BrokerSettings, io.pekquitto.auth.Security, java.util.function.UnaryOperator)}). */
    protected Pekquitto startInProcess(BrokerSettings settings) {
        return Pekquitto.start(settings);
    }

    private void stop() throws InterruptedException {
        try {
            if (publishers != null) publishers.close();
        } finally {
            publishers = null;
            if (pekquitto != null) pekquitto.close();
            if (jar != null) jar.close();
            pekquitto = null;
            jar = null;
        }
    }

    /** The bound port of the broker's listener. */
    public int port() {
        if (!isRunning()) throw new IllegalStateException("the broker is not running: is the BrokerExtension registered?");
        return port;
    }

    /** The listener as a client's server URI, {@code tcp://127.0.0.1:port}. */
    public String uri() {
        return PahoClient.serverUri(port());
    }

    /** The broker in this JVM, for tests that look at its actor system. */
    public Pekquitto pekquitto() {
        if (pekquitto == null) throw new IllegalStateException("not a running in-process broker");
        return pekquitto;
    }

    /** A raw client with its TCP connection open; nothing is sent yet. */
    public RawClient raw() throws IOException {
        return RawClient.open(port());
    }

    /** A raw client that has sent {@code connect} and got CONNACK Success. */
    public RawClient raw(RawClient.Connect connect) throws IOException {
        return RawClient.connected(port(), connect);
    }

    /**
     * Asserts that the broker still serves: a QoS 1 round trip between two new raw connections of the
     * protocol level, after whatever a test did to it.
     */
    public void assertServesQos1(int version) throws IOException {
        String topic = Names.topic("still-served");
        try (var subscriber = raw(RawClient.Connect.of(version, Names.clientId("sub")));
             var publisher = raw(RawClient.Connect.of(version, Names.clientId("pub")))) {
            subscriber.send(RawClient.subscribe(version, 1, new RawClient.Filter(topic, 1)));
            assertEquals(List.of(1), subscriber.expect(RawClient.SUBACK).ackReasons(version));
            publisher.send(RawClient.publish(version, topic, 1, 1, "fine"));
            assertEquals(1, publisher.expect(RawClient.PUBACK).packetId());
            var publish = subscriber.expect(RawClient.PUBLISH).publish(version);
            assertEquals(topic, publish.topic());
            assertEquals("fine", publish.payloadText());
            assertEquals(1, publish.qos());
            subscriber.send(RawClient.ack(RawClient.PUBACK, publish.packetId()));
        }
    }

    /** A Paho MQTT 3.1.1 client, connected with Clean Session 1. */
    public V3Client v3(String clientId) throws Exception {
        return v3(clientId, options -> {});
    }

    /** A Paho MQTT 3.1.1 client, connected with Clean Session 1 unless {@code configure} changes it. */
    public V3Client v3(String clientId, Consumer<MqttConnectOptions> configure) throws Exception {
        return V3Client.connect(port(), clientId, configure);
    }

    /** A Paho MQTT 5 client, connected with Clean Start 1 and no Session Expiry Interval. */
    public V5Client v5(String clientId) throws Exception {
        return v5(clientId, options -> {});
    }

    public V5Client v5(String clientId, Consumer<MqttConnectionOptions> configure) throws Exception {
        return V5Client.connect(port(), clientId, configure);
    }

    /** A Paho client of the protocol level ({@link RawClient#V311} or {@link RawClient#V5}), connected clean. */
    public PahoClient paho(int version, String clientId) throws Exception {
        return PahoClient.connect(version, port(), clientId);
    }

    /** The publishers shared by the tests of this broker; closed before it stops. */
    public Publishers publishers() {
        if (publishers == null) publishers = new Publishers(port());
        return publishers;
    }
}
