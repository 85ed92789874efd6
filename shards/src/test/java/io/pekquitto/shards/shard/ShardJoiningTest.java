package io.pekquitto.shards.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.auth.Security;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.node.MeshPeers;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.stats.LatencyObserver;
import io.pekquitto.shards.stats.ShardFigures;
import io.pekquitto.shards.store.StoreHealth;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A shard hears its peers once it has joined the mesh: at a cold start a peer that set up first may speak
 * before the broker's {@link ShardCommand.Peers} reaches this shard (the broker tells the shards one after
 * the other). A recovered session's will and expiry wait for every peer's answer to a Sync; an answer given
 * before joining went nowhere, and the will was never published (CrashRecoveryIT, seen once in CI).
 */
class ShardJoiningTest {
    private final ActorTestKit testKit = ActorTestKit.create();

    @AfterEach
    void stop() {
        testKit.shutdownTestKit();
    }

    @Test
    void aSyncHeardBeforeTheShardJoinedIsAnsweredOnceItHas() {
        var peers = new MeshPeers(2);
        TestProbe<ShardMessage> first = testKit.createTestProbe();
        var second = testKit.spawn(Shard.create(BrokerSettings.defaults(), Security.OPEN, Optional.empty(),
                StoreHealth.none(), peers, new ShardCounts(2), System::nanoTime, LatencyObserver.NONE), "shard-1");
        // It has set up (it answers) before the broker publishes the shards' references, as at most cold starts.
        TestProbe<ShardFigures> figures = testKit.createTestProbe();
        second.tell(new ShardCommand.GetFigures(figures.ref()));
        figures.expectMessageClass(ShardFigures.class);
        peers.local(List.of(first.ref(), second));

        second.tell(new ShardCommand.Control(0, new ControlMessage.Sync(7)));
        second.tell(new ShardCommand.Peers(1, peers));

        var heard = first.fishForMessage(Duration.ofSeconds(10), message ->
                message.equals(new ShardCommand.Control(1, new ControlMessage.SyncAck(7)))
                        ? FishingOutcomes.complete() : FishingOutcomes.continueAndCollect());
        assertEquals(new ShardCommand.Control(1, new ControlMessage.Hello()), heard.get(0),
                "first that it is here, then the answer");
    }
}
