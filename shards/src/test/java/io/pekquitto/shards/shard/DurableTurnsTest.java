package io.pekquitto.shards.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.mesh.Forwarded;
import io.pekquitto.shards.node.MeshPeers;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.store.InterceptedStore;
import io.pekquitto.shards.store.MemoryStore;
import io.pekquitto.shards.store.ShardPersistence;
import io.pekquitto.shards.store.StoreException;
import io.pekquitto.shards.store.StoreHealth;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A shard's turns and its store: a connection's held acknowledgements go once the turn's batch is written here
 * and by the peers it forwarded to, and are refused when a write fails; a peer's batch is acknowledged once this
 * shard's writes for it are done. Shard 0 of a node of two, batches written on the shard's thread.
 */
class DurableTurnsTest {
    private static final ActorTestKit TESTKIT = ActorTestKit.create();
    private static final Duration QUIET = Duration.ofMillis(100);

    private final TestProbe<ShardMessage> self = TESTKIT.createTestProbe();
    private final TestProbe<ShardMessage> peer = TESTKIT.createTestProbe();
    private final TestProbe<Connection.Command> connection = TESTKIT.createTestProbe();
    private final ConnectionRef client = new ConnectionRef(resumed -> {});
    private final MeshPeers peers = new MeshPeers(2);
    private final Mesh mesh = new Mesh();
    private final AtomicBoolean diskFull = new AtomicBoolean();
    private final StoreHealth health = new StoreHealth("store", () -> 0L);
    private final MemoryStore store = new MemoryStore();
    private ShardPersistence persistence;
    private DurableTurns turns;

    @AfterAll
    static void stop() {
        TESTKIT.shutdownTestKit();
    }

    @BeforeEach
    void start() {
        peers.local(List.of(self.ref(), peer.ref()));
        mesh.join(0, peers);
        assertInstanceOf(ControlMessage.Hello.class, peer.expectMessageClass(ShardCommand.Control.class).message());
        client.bind(connection.ref());
    }

    @AfterEach
    void closeStore() {
        if (turns != null) turns.close();
    }

    private void withoutStore() {
        persistence = new ShardPersistence(Optional.empty(), () -> 0L, () -> 0L, () -> {});
        turns = new DurableTurns(persistence, mesh);
    }

    /** A store on the shard's thread ({@code durability = batch}) that fails while {@link #diskFull}. */
    private void withStore() {
        var flaky = new InterceptedStore(store, batch -> {
            if (diskFull.get()) throw new StoreException("No space left on device", null);
        });
        persistence = new ShardPersistence(Optional.of(flaky), health, () -> 0L, () -> 0L, () -> {}, 100, false,
                "unused", written -> {}, failure -> {});
        turns = new DurableTurns(persistence, mesh);
    }

    /** A turn in which the client's QoS 1 PUBLISH, retained, is written, and its PUBACK waits. */
    private void publishRetained(String topic) {
        persistence.retained(Message.received(topic, Binary.utf8(topic), QoS.AT_LEAST_ONCE, true, Properties.NONE, 0));
        turns.await(client);
    }

    private List<String> storedRetained() {
        var topics = new ArrayList<String>();
        persistence.recoverRetained(message -> topics.add(message.topic()));
        return topics;
    }

    @Test
    void withoutAStoreATurnsAcknowledgementsGoWhenItEnds() {
        withoutStore();
        turns.await(client);
        turns.await(client);
        connection.expectNoMessage(QUIET);
        turns.endTurn(() -> {});
        assertEquals(new Connection.AcknowledgementsWritten(2), connection.expectMessageClass(Connection.AcknowledgementsWritten.class));
    }

    @Test
    void aTurnIsWrittenBeforeItsDeliveriesGoAndItsAcknowledgementsAfter() {
        withStore();
        publishRetained("kept/1");
        var writtenWhenSent = new ArrayList<Long>();
        turns.endTurn(() -> writtenWhenSent.add(persistence.written()));
        assertEquals(List.of(1L), writtenWhenSent, "the batch was written when the turn's deliveries went");
        assertEquals(new Connection.AcknowledgementsWritten(1), connection.expectMessageClass(Connection.AcknowledgementsWritten.class));
        assertEquals(List.of("kept/1"), storedRetained());
    }

    @Test
    void aFailedWriteRefusesWhatWaitedForItAndWhatWaitsUntilTheStoreWritesAgain() {
        withStore();
        diskFull.set(true);
        publishRetained("kept/1");
        turns.endTurn(() -> {});
        assertEquals(new Connection.WritesFailed(1), connection.expectMessageClass(Connection.WritesFailed.class));
        turns.await(client);  // a turn with no write of its own, behind the one that failed
        turns.endTurn(() -> {});
        assertEquals(new Connection.WritesFailed(1), connection.expectMessageClass(Connection.WritesFailed.class));

        diskFull.set(false);
        health.recovered();
        turns.storeRecovered();
        assertEquals(List.of("kept/1"), storedRetained(), "what was kept is written once the store writes again");
        publishRetained("kept/2");
        turns.endTurn(() -> {});
        assertEquals(new Connection.AcknowledgementsWritten(1), connection.expectMessageClass(Connection.AcknowledgementsWritten.class));
    }

    @Test
    void aTurnWhoseMessageWentToAPeerWaitsForThatPeersAcknowledgement() {
        withoutStore();
        turns.await(client);
        mesh.forward(1, new Forwarded.Published("pub", Message.received("t", Binary.utf8("m"), QoS.AT_LEAST_ONCE, false,
                Properties.NONE, 0)));
        turns.endTurn(mesh::flush);
        peer.expectMessageClass(ShardCommand.Forward.class);
        connection.expectNoMessage(QUIET);
        mesh.batchAcknowledged(1);  // as the shard takes the peer's ForwardAck
        turns.peersAcknowledged(1, true);
        assertEquals(new Connection.AcknowledgementsWritten(1), connection.expectMessageClass(Connection.AcknowledgementsWritten.class));
    }

    @Test
    void aPeerThatCouldNotWriteTheForwardedBatchRefusesWhatWaitedForIt() {
        withoutStore();
        turns.await(client);
        mesh.forward(1, new Forwarded.Published("pub", Message.received("t", Binary.utf8("m"), QoS.AT_LEAST_ONCE, false,
                Properties.NONE, 0)));
        turns.endTurn(mesh::flush);
        peer.expectMessageClass(ShardCommand.Forward.class);
        mesh.batchAcknowledged(1);
        turns.peersAcknowledged(1, false);
        assertEquals(new Connection.WritesFailed(1), connection.expectMessageClass(Connection.WritesFailed.class));
    }

    @Test
    void aPeersBatchIsAcknowledgedOnceThisShardsWritesForItAreDone() {
        withStore();
        persistence.retained(Message.received("kept", Binary.utf8("m"), QoS.AT_LEAST_ONCE, true, Properties.NONE, 0));
        turns.acknowledgePeer(1);
        var ack = peer.expectMessageClass(ShardCommand.ForwardAck.class);
        assertEquals(new ShardCommand.ForwardAck(0, true), ack);
        assertEquals(List.of("kept"), storedRetained(), "written before the acknowledgement went");

        diskFull.set(true);
        persistence.retained(Message.received("lost", Binary.utf8("m"), QoS.AT_LEAST_ONCE, true, Properties.NONE, 0));
        turns.acknowledgePeer(1);
        assertEquals(new ShardCommand.ForwardAck(0, false), peer.expectMessageClass(ShardCommand.ForwardAck.class), "not written: said so");
        assertTrue(persistence.hasUnwritten());
    }
}
