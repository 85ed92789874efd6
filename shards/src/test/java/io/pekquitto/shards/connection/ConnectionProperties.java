package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.auth.Security;
import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.shard.Shard;
import io.pekquitto.shards.shard.ShardCounts;
import java.time.Duration;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.ChildFailed;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.util.ByteString;

/**
 * A connection fed arbitrary bytes, after a valid CONNECT or not, ends cleanly (it stops, it does not
 * fail) and its shard goes on serving: the real PreConnect, Connection actor and Shard, with an in-memory transport.
 */
class ConnectionProperties {
    private static ActorTestKit testKit;
    private static ActorRef<ShardMessage> shard;
    private static final BrokerSettings SETTINGS = BrokerSettings.defaults();

    /** How a supervising parent saw its Connection child end. */
    private record Ended(boolean failed, String cause) {}

    @BeforeContainer
    static void start() {
        testKit = ActorTestKit.create();
        shard = testKit.spawn(Shard.create(SETTINGS, Security.OPEN, java.util.Optional.empty(),
                io.pekquitto.shards.store.StoreHealth.none(), new io.pekquitto.shards.node.MeshPeers(1),
                new ShardCounts(1), System::nanoTime, io.pekquitto.shards.stats.LatencyObserver.NONE), "shard");
    }

    @AfterContainer
    static void stop() {
        testKit.shutdownTestKit();
    }

    /** What the test tells the connection: through its parent, which serves it on one thread as the shard does. */
    private record Tell(Connection.Command command) {}

    /**
     * A new connection, waiting for its CONNECT without an actor, under a parent that plays its shard: it
     * spawns the Connection actor once the CONNECT is whole, passes the actor's requests on to the real
     * shard, and reports how the connection ended (closed before its CONNECT, or its actor's end).
     */
    private static ActorRef<Object> spawnWatched(ActorRef<Ended> reportTo) {
        Behavior<Object> parent = Behaviors.setup(context -> {
            var environment = TestConnections.environment(SETTINGS, System::nanoTime);
            ActorRef<ShardRequest> asShard = context.getSelf().narrow();
            var connection = new ConnectionRef(ref -> {
                var child = context.spawnAnonymous(Connection.afterConnect(environment, asShard, ref));
                context.watch(child);
                ref.resumed(child);
            });
            connection.awaitConnect(new PreConnect(environment, asShard, connection, TestConnections.ANY_LISTENER));
            return Behaviors.receive(Object.class)
                    .onMessage(Tell.class, tell -> {
                        connection.tell(tell.command());
                        return Behaviors.same();
                    })
                    .onMessage(ShardRequest.EndedBeforeConnect.class, ended -> {
                        reportTo.tell(new Ended(false, ""));
                        return Behaviors.stopped();
                    })
                    .onMessage(ShardRequest.class, request -> {
                        shard.tell(request);
                        return Behaviors.same();
                    })
                    .onSignal(ChildFailed.class, failed -> {
                        reportTo.tell(new Ended(true, String.valueOf(failed.getCause())));
                        return Behaviors.stopped();
                    })
                    .onSignal(Terminated.class, terminated -> {
                        reportTo.tell(new Ended(false, ""));
                        return Behaviors.stopped();
                    })
                    .build();
        });
        return testKit.spawn(parent);
    }

    private static byte[] connect(ProtocolVersion version, String clientId) {
        var packet = new Connect(version, clientId, true, 60, Optional.empty(), Optional.empty(), Optional.empty(),
                Properties.NONE);
        var buffer = PacketEncoder.encode(packet, version);
        var bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    @Provide
    Arbitrary<byte[]> garbage() {
        return Arbitraries.bytes().array(byte[].class).ofMinSize(0).ofMaxSize(200);
    }

    @Property(tries = 150)
    void arbitraryBytesEndTheConnectionCleanly(@ForAll("garbage") byte[] garbage, @ForAll boolean connectFirst,
                                               @ForAll boolean mqtt5) {
        var version = mqtt5 ? ProtocolVersion.MQTT_5 : ProtocolVersion.MQTT_3_1_1;
        TestProbe<Ended> ended = testKit.createTestProbe();
        var connection = spawnWatched(ended.getRef());
        var transport = new FakeTransport();
        connection.tell(new Tell(new Connection.TransportReady(transport)));
        if (connectFirst) connection.tell(new Tell(new Connection.BytesReceived(ByteString.fromArray(connect(version, "fuzz")))));
        connection.tell(new Tell(new Connection.BytesReceived(ByteString.fromArray(garbage))));
        connection.tell(new Tell(new Connection.TransportClosed("test over")));
        var end = ended.expectMessageClass(Ended.class, Duration.ofSeconds(5));
        assertEquals(new Ended(false, ""), end, "the connection must stop, not fail");
        assertTrue(transport.closed.get(), "the transport is closed");
        shardStillServes();
    }

    private static void shardStillServes() {
        TestProbe<Ended> ended = testKit.createTestProbe();
        var connection = spawnWatched(ended.getRef());
        var transport = new FakeTransport();
        connection.tell(new Tell(new Connection.TransportReady(transport)));
        connection.tell(new Tell(new Connection.BytesReceived(ByteString.fromArray(connect(ProtocolVersion.MQTT_5, "probe")))));
        var probe = testKit.createTestProbe();
        probe.awaitAssert(Duration.ofSeconds(3), Duration.ofMillis(5), () -> {
            var packets = transport.packets(ProtocolVersion.MQTT_5);
            assertEquals(1, packets.size());
            assertEquals(ReasonCode.SUCCESS, assertInstanceOf(ConnAck.class, packets.get(0)).reason());
            return null;
        });
        connection.tell(new Tell(new Connection.TransportClosed("done")));
        ended.expectMessageClass(Ended.class, Duration.ofSeconds(5));
    }
}
