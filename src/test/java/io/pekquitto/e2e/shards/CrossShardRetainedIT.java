package io.pekquitto.e2e.shards;

import static io.pekquitto.e2e.RawClient.PUBACK;
import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V311;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.auth.Security;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.ops.Pekquitto;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.shard.ShardCommand;
import java.time.Duration;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;

/**
 * A retained message is on every shard once it is acknowledged, without a store too: a client that
 * subscribes after the PUBACK, on whichever shard, gets it as a retained message ([MQTT-3.3.1-5],
 * [MQTT-3.3.1-8]), and none once a PUBACK has answered its clearing ([MQTT-3.3.1-10]). The mesh is made
 * slow on purpose: every batch forwarded between the shards arrives 300 ms late.
 */
class CrossShardRetainedIT {
    private static final Duration MESH_DELAY = Duration.ofMillis(300);

    /** A forwarded batch that has waited; it passes the interceptor the second time. */
    private record Late(ShardCommand.Forward forward) implements ShardMessage {}

    /** Holds each forwarded batch back for {@link #MESH_DELAY} before the shard sees it. */
    private static final class SlowMesh extends BehaviorInterceptor<ShardMessage, ShardMessage> {
        SlowMesh() {
            super(ShardMessage.class);
        }

        @Override
        public Behavior<ShardMessage> aroundReceive(TypedActorContext<ShardMessage> context, ShardMessage message,
                                                    ReceiveTarget<ShardMessage> target) {
            if (message instanceof ShardCommand.Forward forward) {
                context.asJava().scheduleOnce(MESH_DELAY, context.asJava().getSelf(), new Late(forward));
                return Behaviors.same();
            }
            return target.apply(context, message instanceof Late late ? late.forward() : message);
        }
    }

    @Test
    void aSubscriberOnTheOtherShardAfterThePubAckGetsTheRetainedMessageAsRetained() throws Exception {
        var settings = BrokerSettings.parse("shards = 2\nplacement = round-robin\nlisteners = [{ host = \"127.0.0.1\", port = 0 }]");
        var broker = Pekquitto.start(settings, Security.OPEN, shard -> Behaviors.intercept(SlowMesh::new, shard));
        try (var publisher = RawClient.connected(broker.port(), Connect.of(V311, "retainer"))) {  // shard 0
            publisher.send(RawClient.publish(V311, "across/shards", 1, true, 1, new byte[0], new byte[] {'k'}));
            publisher.expect(PUBACK, Duration.ofSeconds(5));
            try (var subscriber = RawClient.connected(broker.port(), Connect.of(V311, "late"))) {  // shard 1
                subscriber.send(RawClient.subscribe(V311, 1, new Filter("across/shards", 1)));
                subscriber.expect(SUBACK, Duration.ofSeconds(5));
                var replayed = subscriber.expect(PUBLISH, Duration.ofSeconds(5)).publish(V311);
                assertEquals("k", replayed.payloadText());
                assertTrue(replayed.retain(), "RETAIN 1: it was retained before the subscription");
            }
            publisher.send(RawClient.publish(V311, "across/shards", 1, true, 2, new byte[0], new byte[0]));  // cleared
            publisher.expect(PUBACK, Duration.ofSeconds(5));
            try (var filler = RawClient.connected(broker.port(), Connect.of(V311, "filler"));  // shard 0
                 var later = RawClient.connected(broker.port(), Connect.of(V311, "later"))) {  // shard 1 again
                later.send(RawClient.subscribe(V311, 1, new Filter("across/shards", 1)));
                later.expect(SUBACK, Duration.ofSeconds(5));
                later.expectSilence(MESH_DELAY.multipliedBy(2));  // not the message cleared before the PUBACK
            }
        } finally {
            broker.close();
        }
    }
}
