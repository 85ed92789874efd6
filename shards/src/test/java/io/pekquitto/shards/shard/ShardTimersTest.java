package io.pekquitto.shards.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.auth.Security;
import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.ManualClock;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.connection.ShardRequest;
import io.pekquitto.shards.connection.TestConnections;
import io.pekquitto.shards.session.DelayedWill;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SubscribeRequest;
import io.pekquitto.shards.settings.BrokerSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shard's timers and clock, under Pekko's {@link ManualTime} and a clock the test moves with it:
 * session expiry, Will Delay and retained message expiry happen when their time has come, not before,
 * and no test waits for them. Connections are test probes speaking the shard's request protocol.
 */
class ShardTimersTest {
    private ActorTestKit testKit;
    private final ManualClock clock = new ManualClock();
    private ActorRef<ShardMessage> shard;
    /** The session each attached probe holds, as a connection would. */
    private final Map<TestProbe<Connection.Command>, Session> sessions = new HashMap<>();
    private final Map<TestProbe<Connection.Command>, ConnectionRef> refs = new HashMap<>();

    @BeforeEach
    void start() {
        testKit = clock.testKit();
        var peers = new io.pekquitto.shards.node.MeshPeers(1);
        shard = testKit.spawn(Shard.create(BrokerSettings.defaults(), Security.OPEN, java.util.Optional.empty(),
                io.pekquitto.shards.store.StoreHealth.none(), peers, new ShardCounts(1), clock, io.pekquitto.shards.stats.LatencyObserver.NONE), "shard");
        peers.local(List.of(shard));
        shard.tell(new ShardCommand.Peers(0, peers));
    }

    @AfterEach
    void stop() {
        clock.shutdown();
    }

    private ConnectionRef ref(TestProbe<Connection.Command> connection) {
        return refs.computeIfAbsent(connection, probe -> TestConnections.servedBy(probe.getRef()));
    }

    private TestProbe<Connection.Command> attach(String clientId, long expiry, boolean expectSessionPresent) {
        TestProbe<Connection.Command> connection = testKit.createTestProbe();
        shard.tell(new ShardRequest.Attach(clientId, false, expiry, ref(connection), Optional.empty()));
        var attached = connection.expectMessageClass(Connection.Attached.class);
        assertEquals(expectSessionPresent, attached.sessionPresent(), "Session Present");
        sessions.put(connection, attached.session());
        return connection;
    }

    private void release(String clientId, TestProbe<Connection.Command> connection, long expiry,
                         Optional<DelayedWill> will) {
        shard.tell(new ShardRequest.Release(clientId, ref(connection), sessions.get(connection), expiry, will));
        connection.expectMessage(Connection.ReleaseConfirmed.INSTANCE);
        shard.tell(new ShardRequest.Drained(ref(connection)));
    }

    private Connection.Subscribed subscribe(String clientId, TestProbe<Connection.Command> connection, String filter) {
        shard.tell(new ShardRequest.Subscribe(clientId, 1, List.of(ReasonCode.GRANTED_QOS_0),
                List.of(new SubscribeRequest(filter, SubscriptionOptions.of(QoS.AT_MOST_ONCE), 0)), ref(connection)));
        return connection.expectMessageClass(Connection.Subscribed.class);
    }

    @Test
    void anOfflineSessionIsKeptUntilItsExpiryInterval() {  // [MQTT-3.1.2-23]
        var first = attach("c", 10, false);
        release("c", first, 10, Optional.empty());
        clock.advance(Duration.ofSeconds(9));
        attach("c", 10, true);
    }

    @Test
    void anOfflineSessionEndsWhenItsExpiryIntervalHasPassed() {  // 3.1.2.11.2
        var first = attach("c", 10, false);
        release("c", first, 10, Optional.empty());
        clock.advance(Duration.ofSeconds(10));
        attach("c", 10, false);
    }

    @Test
    void aDelayedWillIsPublishedAfterItsDelayAndNotBefore() {  // 3.1.3.2.2
        var subscriber = attach("sub", 60, false);
        subscribe("sub", subscriber, "will/#");
        var client = attach("c", 60, false);
        var will = Message.received("will/c", Binary.utf8("gone"), QoS.AT_MOST_ONCE, false, Properties.NONE, clock.getAsLong());
        release("c", client, 60, Optional.of(new DelayedWill(will, 5)));

        clock.advance(Duration.ofSeconds(4));
        subscriber.expectNoMessage(Duration.ofMillis(100));
        clock.advance(Duration.ofSeconds(1));
        var delivered = subscriber.expectMessageClass(Connection.Deliver.class);
        assertEquals("will/c", delivered.messages().get(0).topic());
    }

    @Test
    void aClientBackBeforeItsWillDelayCancelsTheWill() {  // [MQTT-3.1.3-9]
        var subscriber = attach("sub", 60, false);
        subscribe("sub", subscriber, "will/#");
        var client = attach("c", 60, false);
        var will = Message.received("will/c", Binary.utf8("gone"), QoS.AT_MOST_ONCE, false, Properties.NONE, clock.getAsLong());
        release("c", client, 60, Optional.of(new DelayedWill(will, 5)));

        clock.advance(Duration.ofSeconds(3));
        attach("c", 60, true);
        clock.advance(Duration.ofSeconds(10));
        subscriber.expectNoMessage(Duration.ofMillis(100));
    }

    private Message withExpiry(String topic, String payload, boolean retain, long seconds) {
        var properties = Properties.builder().set(PropertyId.MESSAGE_EXPIRY_INTERVAL, seconds).build();
        return Message.received(topic, Binary.utf8(payload), QoS.AT_LEAST_ONCE, retain, properties, clock.getAsLong());
    }

    @Test
    void anExpiredRetainedMessageIsDiscardedAndALiveOneKeepsWhatIsLeftOfItsInterval() {  // [MQTT-3.3.2-5] [MQTT-3.3.2-6]
        shard.tell(new ShardRequest.Route("pub", withExpiry("r/short", "short-lived", true, 1)));
        shard.tell(new ShardRequest.Route("pub", withExpiry("r/long", "long-lived", true, 100)));
        var early = attach("early", 0, false);
        assertEquals(2, subscribe("early", early, "r/#").retained().size(), "both alive: both sent");

        clock.advance(Duration.ofSeconds(2));
        var late = attach("late", 0, false);
        var retained = subscribe("late", late, "r/#").retained();
        assertEquals(List.of("r/long"), retained.stream().map(Message::topic).toList(), "the expired one is discarded");
        var sent = retained.get(0).toPublish(0, false, clock.getAsLong());  // QoS 0: the subscription's maximum
        assertEquals(Optional.of(98L), sent.properties().messageExpiryInterval(), "100 s less the 2 s it was retained");
    }

    @Test
    void aQueuedMessageExpiresWhileItsSessionIsOffline() {  // [MQTT-3.3.2-5] [MQTT-3.3.2-6]
        var subscriber = attach("sub", 60, false);
        shard.tell(new ShardRequest.Subscribe("sub", 1, List.of(ReasonCode.GRANTED_QOS_1),
                List.of(new SubscribeRequest("q/#", SubscriptionOptions.of(QoS.AT_LEAST_ONCE), 0)), ref(subscriber)));
        subscriber.expectMessageClass(Connection.Subscribed.class);
        release("sub", subscriber, 60, Optional.empty());
        shard.tell(new ShardRequest.Route("pub", withExpiry("q/t", "short-lived", false, 1)));
        shard.tell(new ShardRequest.Route("pub", withExpiry("q/t", "long-lived", false, 100)));

        clock.advance(Duration.ofSeconds(2));
        var back = attach("sub", 60, true);
        var sent = new ArrayList<Publish>();
        sessions.get(back).drain(10, clock.getAsLong(), sent::add);
        assertEquals(List.of("long-lived"), sent.stream().map(p -> p.payload().asUtf8()).toList(),
                "the queued message whose interval passed is not delivered");
        assertEquals(Optional.of(98L), sent.get(0).properties().messageExpiryInterval());
    }
}
