package io.pekquitto.shards.bridge;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.connection.ShardRequest;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.settings.BridgeSettings;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A bridge's state, published here, retained, at QoS 1 on its notification topic (Mosquitto's
 * {@code $SYS/broker/connection/CLIENT-ID/state}): "1" while the link is up, "0" otherwise. Routed
 * through the shard as the broker's own $SYS figures are, since no client may publish under $SYS.
 */
final class LinkNotifications {
    private static final Binary UP = Binary.utf8("1");
    private static final Binary DOWN = Binary.utf8("0");

    private final BridgeSettings bridge;
    private final ActorRef<ShardMessage> shard;
    private final LongSupplier clock;

    LinkNotifications(BridgeSettings bridge, ActorRef<ShardMessage> shard, LongSupplier clock) {
        this.bridge = bridge;
        this.shard = shard;
        this.clock = clock;
    }

    void up() {
        publish(UP);
    }

    void down() {
        publish(DOWN);
    }

    private void publish(Binary state) {
        if (!bridge.notifications()) return;
        shard.tell(new ShardRequest.Route(ShardRequest.Route.BROKER, Message.received(bridge.notificationTopic(), state, QoS.AT_LEAST_ONCE, true,
                Properties.NONE, clock.getAsLong())));
    }
}
