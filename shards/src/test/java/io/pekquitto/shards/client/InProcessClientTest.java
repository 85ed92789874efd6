package io.pekquitto.shards.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.client.InProcessClient.Connected;
import io.pekquitto.shards.client.InProcessClient.Publish;
import io.pekquitto.shards.client.InProcessClient.Published;
import io.pekquitto.shards.client.InProcessClient.Subscribe;
import io.pekquitto.shards.client.InProcessClient.Subscribed;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.connection.ShardRequest;
import io.pekquitto.shards.connection.TestConnections;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.settings.BrokerSettings;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The in-process client actor against a probe that plays its shard: the connection protocol it speaks
 * ({@link ShardRequest} out, {@link Connection.Command} in) and what its owner and subscribers hear.
 */
class InProcessClientTest {
    private static final long NOW = 1_000_000_000L;
    private static final BrokerSettings SETTINGS = BrokerSettings.parse("receive-maximum = 2\nmax-inflight-messages = 1");

    private final ActorTestKit testKit = ActorTestKit.create();
    private final TestProbe<ShardMessage> shard = testKit.createTestProbe();
    private final TestProbe<InProcessClient.ConnectOutcome> owner = testKit.createTestProbe();
    private final TestProbe<Published> published = testKit.createTestProbe();
    private final TestProbe<ReceivedMessage> subscriber = testKit.createTestProbe();
    private final Session session = new Session("c", 10, false);
    private ConnectionRef connection;
    private ActorRef<Connection.Command> actor;

    @AfterEach
    void stop() {
        testKit.shutdownTestKit();
    }

    private void start(ConnectOptions options) {
        connection = TestConnections.unbound();
        actor = testKit.spawn(InProcessClient.create(TestConnections.environment(SETTINGS, () -> NOW), shard.getRef().narrow(),
                connection, new InProcessClient.Start(options, owner.getRef())));
        connection.bind(actor);
    }

    private ActorRef<InProcessClient.Command> connect(ConnectOptions options) {
        start(options);
        shard.expectMessageClass(ShardRequest.Attach.class);
        connection.tell(new Connection.Attached(false, session));
        return owner.expectMessageClass(Connected.class).client();
    }

    private int subscribe(ActorRef<InProcessClient.Command> client, String filter, QoS qos) {
        var answer = testKit.<Subscribed>createTestProbe();
        client.tell(new Subscribe(filter, qos, subscriber.getRef(), answer.getRef()));
        var request = shard.expectMessageClass(ShardRequest.Subscribe.class);
        connection.tell(new Connection.Subscribed(request.packetId(), request.reasons(), List.of()));
        assertEquals(new Subscribed(filter, ReasonCode.granted(qos)), answer.receiveMessage());
        return request.requests().get(0).subscriptionIdentifier();
    }

    private static Message message(String topic, QoS qos, int subscriptionIdentifier) {
        return Message.received(topic, Binary.utf8("21.5"), qos, false,
                Properties.builder().addSubscriptionIdentifier(subscriptionIdentifier).build(), NOW);
    }

    private Publish publish(String topic, QoS qos) {
        return new Publish(topic, Binary.utf8("on"), qos, false, MessageProperties.NONE, published.getRef());
    }

    @Test
    void itAttachesTheSessionAsAConnectionDoesAndAnswersConnected() {
        start(ConnectOptions.clientId("thermostat").resumingSession().withSessionExpiryInterval(60));
        var attach = shard.expectMessageClass(ShardRequest.Attach.class);
        assertEquals("thermostat", attach.clientId());
        assertFalse(attach.cleanStart());
        assertEquals(60, attach.sessionExpiryInterval());
        assertSame(connection, attach.connection());
        connection.tell(new Connection.Attached(true, session));
        var connected = owner.expectMessageClass(Connected.class);
        assertEquals("thermostat", connected.clientId());
        assertTrue(connected.sessionPresent());
    }

    @Test
    void aConnectRefusedByItsChecksIsAnsweredAndTheActorStops() {
        start(ConnectOptions.clientId("bad\u0000id"));
        assertEquals(ReasonCode.CLIENT_IDENTIFIER_NOT_VALID, owner.expectMessageClass(InProcessClient.Refused.class).reason());
        owner.expectTerminated(actor);
    }

    @Test
    void aTakeoverWhileAttachingRefusesTheConnect() {  // [MQTT-3.1.4-3]
        start(ConnectOptions.clientId("c"));
        shard.expectMessageClass(ShardRequest.Attach.class);
        connection.tell(Connection.TakenOver.INSTANCE);
        assertEquals(ReasonCode.SESSION_TAKEN_OVER, owner.expectMessageClass(InProcessClient.Refused.class).reason());
        owner.expectTerminated(actor);
    }

    @Test
    void aPublishIsPublishedOnceTheShardConfirmsItsRoute() {
        var client = connect(ConnectOptions.clientId("c"));
        client.tell(publish("lamps/kitchen", QoS.AT_LEAST_ONCE));
        var route = shard.expectMessageClass(ShardRequest.Route.class);
        assertEquals("lamps/kitchen", route.message().topic());
        assertSame(connection, route.awaitingAck(), "confirmed once routed (and written, with a store)");
        client.tell(publish("$SYS/broker/uptime", QoS.AT_LEAST_ONCE));
        assertEquals(ReasonCode.NOT_AUTHORIZED, published.receiveMessage().reason(), "refused, and the first not answered yet");
        connection.tell(new Connection.AcknowledgementsWritten(1));
        assertEquals(new Published(ReasonCode.SUCCESS, ""), published.receiveMessage());
    }

    @Test
    void aQos0PublishWithoutAnswerWaitsForNothing() {
        var client = connect(ConnectOptions.clientId("c"));
        client.tell(new Publish("a", Binary.utf8("x"), QoS.AT_MOST_ONCE, false));
        assertNull(shard.expectMessageClass(ShardRequest.Route.class).awaitingAck());
    }

    @Test
    void pastReceiveMaximumUnconfirmedPublishesTheNextIsRefused() {
        var client = connect(ConnectOptions.clientId("c"));
        client.tell(publish("a", QoS.AT_LEAST_ONCE));
        client.tell(publish("a", QoS.EXACTLY_ONCE));
        client.tell(publish("a", QoS.AT_LEAST_ONCE));
        assertEquals(ReasonCode.QUOTA_EXCEEDED, published.receiveMessage().reason());
        shard.expectMessageClass(ShardRequest.Route.class);
        shard.expectMessageClass(ShardRequest.Route.class);
        connection.tell(new Connection.AcknowledgementsWritten(2));
        assertTrue(published.receiveMessage().isSuccess());
        assertTrue(published.receiveMessage().isSuccess());
        client.tell(publish("a", QoS.AT_LEAST_ONCE));
        shard.expectMessageClass(ShardRequest.Route.class);
    }

    @Test
    void theSubscriberGetsItsMessagesAndEachAcknowledgementLetsTheNextGo() {
        var client = connect(ConnectOptions.clientId("c"));
        int id = subscribe(client, "sensors/#", QoS.AT_LEAST_ONCE);
        connection.tell(new Connection.Deliver(List.of(message("sensors/a", QoS.AT_LEAST_ONCE, id),
                message("sensors/b", QoS.AT_LEAST_ONCE, id))));
        var first = subscriber.receiveMessage();
        assertEquals("sensors/a", first.topic());
        assertEquals("21.5", first.payload().asUtf8());
        assertEquals(MessageProperties.NONE, first.properties(), "the client's own Subscription Identifiers left out");
        first.acknowledge();  // max-inflight-messages = 1: the second waited for this
        assertEquals("sensors/b", subscriber.receiveMessage().topic());
    }

    @Test
    void retainedMessagesFollowTheSubscribeAnswer() {  // [MQTT-3.3.1-9]
        var client = connect(ConnectOptions.clientId("c"));
        var answer = testKit.<Subscribed>createTestProbe();
        client.tell(new Subscribe("lamps/+", QoS.AT_LEAST_ONCE, subscriber.getRef(), answer.getRef()));
        var request = shard.expectMessageClass(ShardRequest.Subscribe.class);
        var retained = Message.received("lamps/hall", Binary.utf8("off"), QoS.AT_LEAST_ONCE, true,
                Properties.builder().addSubscriptionIdentifier(request.requests().get(0).subscriptionIdentifier()).build(), NOW);
        connection.tell(new Connection.Subscribed(request.packetId(), request.reasons(), List.of(retained)));
        assertTrue(answer.receiveMessage().isSuccess());
        var message = subscriber.receiveMessage();
        assertTrue(message.retain());
        assertEquals("lamps/hall", message.topic());
    }

    @Test
    void aSubscriptionRefusedByTheRulesNeverReachesTheShard() {
        var client = connect(ConnectOptions.clientId("c"));
        var answer = testKit.<Subscribed>createTestProbe();
        client.tell(new Subscribe("a/#/b", QoS.AT_MOST_ONCE, subscriber.getRef(), answer.getRef()));
        assertEquals(ReasonCode.TOPIC_FILTER_INVALID, answer.receiveMessage().reason());
        var sharedNoLocal = new SubscriptionOptions(QoS.AT_MOST_ONCE, true, false, 0);
        client.tell(new Subscribe("$share/g/a", sharedNoLocal, subscriber.getRef(), Optional.of(answer.getRef())));
        assertEquals(ReasonCode.PROTOCOL_ERROR, answer.receiveMessage().reason(), "[MQTT-3.8.3-4]");
        client.tell(publish("a", QoS.AT_MOST_ONCE));
        assertEquals("a", shard.expectMessageClass(ShardRequest.Route.class).message().topic(), "the first request since");
    }

    @Test
    void aDisconnectWaitsForThePublishesBeforeItThenReleasesTheSessionWithoutTheWill() {
        var will = new ConnectOptions.Will("status/c", Binary.utf8("gone"), QoS.AT_LEAST_ONCE, false);
        var client = connect(ConnectOptions.clientId("c").withWill(will));
        client.tell(publish("a", QoS.AT_LEAST_ONCE));
        shard.expectMessageClass(ShardRequest.Route.class);
        client.tell(InProcessClient.Disconnect.NORMAL);
        connection.tell(new Connection.AcknowledgementsWritten(1));
        assertTrue(published.receiveMessage().isSuccess());
        var release = shard.expectMessageClass(ShardRequest.Release.class);
        assertSame(session, release.session());
        assertTrue(release.will().isEmpty());
        connection.tell(Connection.ReleaseConfirmed.INSTANCE);
        shard.expectMessageClass(ShardRequest.Drained.class);
        shard.expectTerminated(actor);
    }

    @Test
    void aDisconnectWithWillPublishesIt() {  // DISCONNECT 0x04
        var will = new ConnectOptions.Will("status/c", Binary.utf8("gone"), QoS.AT_LEAST_ONCE, true);
        var client = connect(ConnectOptions.clientId("c").withWill(will));
        client.tell(InProcessClient.Disconnect.WITH_WILL);
        var route = shard.expectMessageClass(ShardRequest.Route.class);
        assertEquals("status/c", route.message().topic());
        assertTrue(route.message().retain());
        shard.expectMessageClass(ShardRequest.Release.class);
    }

    @Test
    void aTakenOverClientPublishesItsWillAndBouncesWhatTheShardStillSends() {
        var will = new ConnectOptions.Will("status/c", Binary.utf8("gone"), QoS.AT_MOST_ONCE, false,
                MessageProperties.NONE, 30);
        var client = connect(ConnectOptions.clientId("c").withWill(will));
        int id = subscribe(client, "a", QoS.AT_LEAST_ONCE);
        connection.tell(Connection.TakenOver.INSTANCE);
        var release = shard.expectMessageClass(ShardRequest.Release.class);
        assertEquals(30, release.will().orElseThrow().delaySeconds(), "a delayed will goes with the session");
        var late = message("a", QoS.AT_LEAST_ONCE, id);
        connection.tell(new Connection.Deliver(List.of(late)));
        assertSame(late, shard.expectMessageClass(ShardRequest.Bounce.class).message());
        connection.tell(Connection.ReleaseConfirmed.INSTANCE);
        shard.expectMessageClass(ShardRequest.Drained.class);
        shard.expectTerminated(actor);
    }

    @Test
    void aShutdownReleasesTheSessionWithTheWillOfASessionThatEndsWithTheBroker() {  // no store here
        var will = new ConnectOptions.Will("status/c", Binary.utf8("gone"), QoS.AT_MOST_ONCE, false, MessageProperties.NONE, 0);
        connect(ConnectOptions.clientId("c").withWill(will));
        connection.tell(Connection.ServerShuttingDown.INSTANCE);
        assertEquals("status/c", shard.expectMessageClass(ShardRequest.Route.class).message().topic());
        shard.expectMessageClass(ShardRequest.Release.class);
        connection.tell(Connection.ReleaseConfirmed.INSTANCE);
        shard.expectMessageClass(ShardRequest.Drained.class);
        shard.expectTerminated(actor);
    }

    @Test
    void aShutdownWhileAttachingRefusesTheConnectAndGivesTheSessionBack() {
        start(ConnectOptions.clientId("c"));
        shard.expectMessageClass(ShardRequest.Attach.class);
        connection.tell(Connection.ServerShuttingDown.INSTANCE);
        connection.tell(new Connection.Attached(false, session));
        assertEquals(ReasonCode.SERVER_SHUTTING_DOWN, owner.expectMessageClass(InProcessClient.Refused.class).reason());
        assertSame(session, shard.expectMessageClass(ShardRequest.Release.class).session());
    }

    @Test
    void aSubscriberThatStopsIsUnsubscribed() {
        var client = connect(ConnectOptions.clientId("c"));
        var mortal = testKit.spawn(Behaviors.<ReceivedMessage>receiveMessage(message -> Behaviors.stopped()));
        client.tell(new Subscribe("a/#", SubscriptionOptions.of(QoS.AT_LEAST_ONCE), mortal, Optional.empty()));
        var request = shard.expectMessageClass(ShardRequest.Subscribe.class);
        connection.tell(new Connection.Subscribed(request.packetId(), request.reasons(), List.of()));
        testKit.stop(mortal);
        var unsubscribe = shard.expectMessageClass(ShardRequest.Unsubscribe.class);
        assertEquals(List.of("a/#"), unsubscribe.topicFilters());
    }
}
