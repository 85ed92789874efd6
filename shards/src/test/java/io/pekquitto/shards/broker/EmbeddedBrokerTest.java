package io.pekquitto.shards.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.shards.client.ConnectOptions;
import io.pekquitto.shards.client.InProcessClient;
import io.pekquitto.shards.client.MessageProperties;
import io.pekquitto.shards.client.ReceivedMessage;
import io.pekquitto.shards.session.SessionDirectory;
import io.pekquitto.shards.settings.BrokerSettings;
import java.time.Duration;
import java.util.HashSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The broker spawned in an actor system of the test's own, whose configuration knows nothing of it, and
 * in-process clients on both of its shards: they reach each other through the mesh as socket clients do.
 */
class EmbeddedBrokerTest {
    /** Two client ids whose homes are the two shards. */
    private static final String ON_SHARD_0 = clientIdWithHome(0);
    private static final String ON_SHARD_1 = clientIdWithHome(1);

    private final ActorTestKit testKit = ActorTestKit.create();
    private ActorRef<BrokerCommand> broker;

    private static String clientIdWithHome(int shard) {
        for (int i = 0; ; i++) if (SessionDirectory.homeOf("client-" + i, 2) == shard) return "client-" + i;
    }

    @BeforeEach
    void start() {
        var settings = BrokerSettings.parse("shards = 2\nlisteners = [{host = \"127.0.0.1\", port = 0}]");
        broker = testKit.spawn(Broker.create(settings), "pekquitto");
        var bound = testKit.<BrokerCommand.Bound>createTestProbe();
        broker.tell(new BrokerCommand.GetBoundAddresses(bound.getRef()));
        assertTrue(bound.receiveMessage().failure().isEmpty());
    }

    @AfterEach
    void stop() {
        testKit.shutdownTestKit();
    }

    private InProcessClient.Connected connect(ConnectOptions options) {
        var reply = testKit.<InProcessClient.ConnectOutcome>createTestProbe();
        broker.tell(new BrokerCommand.ConnectClient(options, reply.getRef()));
        return reply.expectMessageClass(InProcessClient.Connected.class);
    }

    private void subscribe(ActorRef<InProcessClient.Command> client, String filter, TestProbe<ReceivedMessage> subscriber) {
        var answer = testKit.<InProcessClient.Subscribed>createTestProbe();
        client.tell(new InProcessClient.Subscribe(filter, QoS.AT_LEAST_ONCE, subscriber.getRef(), answer.getRef()));
        assertTrue(answer.receiveMessage().isSuccess());
    }

    private void publish(ActorRef<InProcessClient.Command> client, String topic, String payload, boolean retain) {
        var answer = testKit.<InProcessClient.Published>createTestProbe();
        client.tell(new InProcessClient.Publish(topic, Binary.utf8(payload), QoS.AT_LEAST_ONCE, retain,
                MessageProperties.NONE.withContentType("text/plain"), answer.getRef()));
        assertTrue(answer.receiveMessage().isSuccess());
    }

    @Test
    void clientsOnTwoShardsPublishToEachOtherAndGetRetainedMessages() {
        var subscriber = connect(ConnectOptions.clientId(ON_SHARD_0)).client();
        var publisher = connect(ConnectOptions.clientId(ON_SHARD_1)).client();
        TestProbe<ReceivedMessage> inbox = testKit.createTestProbe();
        subscribe(subscriber, "lamps/#", inbox);
        publish(publisher, "lamps/hall", "on", true);
        var message = inbox.receiveMessage();
        assertEquals("on", message.payload().asUtf8());
        assertEquals("text/plain", message.properties().contentType().orElseThrow());
        message.acknowledge();
        TestProbe<ReceivedMessage> late = testKit.createTestProbe();
        subscribe(publisher, "lamps/+", late);
        var retained = late.receiveMessage();
        assertTrue(retained.retain());
        assertEquals("lamps/hall", retained.topic());
    }

    @Test
    void aSharedSubscriptionGivesEachMessageToOneMember() {
        var first = connect(ConnectOptions.clientId(ON_SHARD_0)).client();
        var second = connect(ConnectOptions.clientId(ON_SHARD_1)).client();
        TestProbe<ReceivedMessage> firstInbox = testKit.createTestProbe();
        TestProbe<ReceivedMessage> secondInbox = testKit.createTestProbe();
        subscribe(first, "$share/workers/jobs", firstInbox);
        subscribe(second, "$share/workers/jobs", secondInbox);
        var publisher = connect(ConnectOptions.clientId("")).client();
        for (int i = 0; i < 4; i++) publish(publisher, "jobs", "job-" + i, false);
        var seen = new HashSet<String>();
        for (int i = 0; i < 2; i++) {
            var a = firstInbox.receiveMessage();
            var b = secondInbox.receiveMessage();
            a.acknowledge();
            b.acknowledge();
            seen.add(a.payload().asUtf8());
            seen.add(b.payload().asUtf8());
        }
        assertEquals(4, seen.size(), "each job once, two each in round robin: " + seen);
    }

    @Test
    void aSecondClientWithTheSameIdTakesTheSessionOver() {  // [MQTT-3.1.4-2]
        var options = ConnectOptions.clientId(ON_SHARD_1).resumingSession().withSessionExpiryInterval(60);
        var first = connect(options);
        var watcher = testKit.createTestProbe();
        var second = connect(options);
        watcher.expectTerminated(first.client());
        assertTrue(second.sessionPresent());
        assertNotEquals(first.client(), second.client());
    }

    @Test
    void codeThatIsNotAnActorUsesTheEmbeddedClient() throws Exception {
        var timeout = Duration.ofSeconds(3);
        var subscriber = EmbeddedClient.connect(testKit.system(), broker, ConnectOptions.clientId(ON_SHARD_0), timeout)
                .toCompletableFuture().get();
        var received = new LinkedBlockingQueue<String>();
        var subscribed = subscriber.subscribe("reports/#", QoS.AT_LEAST_ONCE, message -> received.add(message.payload().asUtf8()));
        assertTrue(subscribed.toCompletableFuture().get().isSuccess());
        var publisher = EmbeddedClient.connect(testKit.system(), broker, ConnectOptions.clientId(ON_SHARD_1), timeout)
                .toCompletableFuture().get();
        for (int i = 0; i < 30; i++) {  // more than max-inflight-messages: each is acknowledged as the handler returns
            var published = publisher.publish("reports/" + i, Binary.utf8("report " + i), QoS.EXACTLY_ONCE, false, MessageProperties.NONE);
            assertTrue(published.toCompletableFuture().get().isSuccess());
        }
        for (int i = 0; i < 30; i++) assertEquals("report " + i, received.poll(3, TimeUnit.SECONDS));
        var refused = EmbeddedClient.connect(testKit.system(), broker, ConnectOptions.clientId("\u0000"), timeout).toCompletableFuture();
        var failure = assertThrows(ExecutionException.class, refused::get);
        assertEquals(ReasonCode.CLIENT_IDENTIFIER_NOT_VALID, ((EmbeddedClient.RefusedException) failure.getCause()).reason());
    }
}
