package io.pekquitto.shards.broker;

import com.typesafe.config.ConfigFactory;
import io.pekquitto.shards.transport.ShardLoopConfigurator;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.dispatch.DispatcherConfigurator;

/**
 * The shards' dispatchers, checked or added. An embedder's actor system may configure them (to tune
 * {@code throughput}, say) but each must be one Netty event loop, {@link ShardLoopConfigurator}: the
 * thread that runs the shard's actors is the thread that reads and writes its sockets, and the classes it
 * owns are shared by them without a lock. One the system does not configure is registered as
 * {@link Broker#dispatcherConfig(int)} would have made it ({@code Dispatchers.registerConfigurator},
 * Pekko's way to add one at run time): Pekko fails the spawn of an actor whose dispatcher is not there.
 */
final class ShardDispatchers {
    private ShardDispatchers() {}

    /**
     * Registers each of the first {@code shards} shard dispatchers that {@code system} has no configuration for.
     *
     * @throws IllegalArgumentException if the system configures one with another executor
     */
    static void ensure(ActorSystem<?> system, int shards) {
        var dispatchers = Adapter.toClassic(system).dispatchers();
        var configured = system.settings().config();
        var ours = Broker.dispatcherConfig(shards);
        for (int i = 0; i < shards; i++) {
            var id = Broker.dispatcherPath(i);
            if (configured.hasPath(id)) {
                var executor = configured.getConfig(id).hasPath("executor") ? configured.getString(id + ".executor") : "(none)";
                if (!executor.equals(ShardLoopConfigurator.class.getName())) {
                    throw new IllegalArgumentException(id + ".executor [" + executor + "]: a shard's dispatcher must be one event loop, "
                            + "executor = \"" + ShardLoopConfigurator.class.getName() + "\" (see Broker.dispatcherConfig)");
                }
            }
            if (dispatchers.hasDispatcher(id)) continue;
            // What Pekko builds from configuration: the id, the section, its name, the default dispatcher's keys.
            var config = ConfigFactory.parseMap(Map.of("id", id, "name", id))
                    .withFallback(ours.getConfig(id))
                    .withFallback(dispatchers.defaultDispatcherConfig());
            dispatchers.registerConfigurator(id, new DispatcherConfigurator(config, dispatchers.prerequisites()));
        }
    }
}
