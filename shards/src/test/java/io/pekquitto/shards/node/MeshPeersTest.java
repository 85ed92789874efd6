package io.pekquitto.shards.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.shards.connection.ShardMessage;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

class MeshPeersTest {
    private static final ActorTestKit TESTKIT = ActorTestKit.create();

    @AfterAll
    static void stop() {
        TESTKIT.shutdownTestKit();
    }

    private static ActorRef<ShardMessage> shard() {
        return TESTKIT.<ShardMessage>createTestProbe().ref();
    }

    @Test
    void theLocalShardsComeFirstAndAreSetOnceSpawned() {
        var peers = new MeshPeers(2);
        assertFalse(peers.started());
        var first = shard();
        var second = shard();
        peers.local(List.of(first, second));
        assertTrue(peers.started());
        assertEquals(2, peers.size());
        assertSame(second, peers.ref(1));
        assertEquals(1, peers.localIndexOf(second));
        assertTrue(peers.isLocal(1));
    }

    @Test
    void aRemoteShardGetsTheNextIdOnceAndKeepsItWhenItsNodeComesBack() {
        var peers = new MeshPeers(2);
        int a0 = peers.remoteId("pekquitto@10.0.0.1:25520", 0);
        int b0 = peers.remoteId("pekquitto@10.0.0.2:25520", 0);
        int a1 = peers.remoteId("pekquitto@10.0.0.1:25520", 1);
        assertEquals(List.of(2, 3, 4), List.of(a0, b0, a1));
        assertFalse(peers.isLocal(a0));
        assertNull(peers.ref(a0), "not listed yet");
        var ref = shard();
        peers.remote(a0, ref);
        assertEquals(List.of(a0), peers.remoteShards());
        peers.remote(a0, null);  // its node left
        assertEquals(List.of(), peers.remoteShards());
        assertEquals(a0, peers.remoteId("pekquitto@10.0.0.1:25520", 0), "the same address: the same id, never reused by another");
        assertEquals(5, peers.size());
    }

    @Test
    void aLocalShardCannotBeSetAsRemote() {
        var peers = new MeshPeers(1);
        assertThrows(IllegalArgumentException.class, () -> peers.remote(0, shard()));
    }
}
