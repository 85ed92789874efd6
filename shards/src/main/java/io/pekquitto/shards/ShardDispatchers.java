package io.pekquitto.shards;

import com.typesafe.config.ConfigFactory;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.dispatch.DispatcherConfigurator;

/**
 * The shards' one-thread dispatchers in an actor system that does not configure them: an embedder's,
 * which spawns {@link Broker#create} without adding {@link Broker#dispatcherConfig(int)} to its
 * configuration. Pekko looks a dispatcher up by its configuration path and fails the spawn of an actor
 * whose dispatcher is not there; {@code Dispatchers.registerConfigurator}, Pekko's way to add one at
 * run time, registers the same dispatcher the configuration would have made. One the system's
 * configuration does have is left as it is: the embedder's tuning wins.
 */
final class ShardDispatchers {
    private ShardDispatchers() {}

    /** Registers each of the first {@code shards} shard dispatchers that {@code system} has no configuration for. */
    static void registerMissing(ActorSystem<?> system, int shards) {
        var dispatchers = Adapter.toClassic(system).dispatchers();
        var ours = Broker.dispatcherConfig(shards);
        for (int i = 0; i < shards; i++) {
            var id = Broker.dispatcherPath(i);
            if (dispatchers.hasDispatcher(id)) continue;
            // What Pekko builds from configuration: the id, the section, its name, the default dispatcher's keys.
            var config = ConfigFactory.parseMap(Map.of("id", id, "name", id))
                    .withFallback(ours.getConfig(id))
                    .withFallback(dispatchers.defaultDispatcherConfig());
            dispatchers.registerConfigurator(id, new DispatcherConfigurator(config, dispatchers.prerequisites()));
        }
    }
}
