package io.pekquitto.shards.broker;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.connection.ShardRequest;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.shard.ShardCommand;
import io.pekquitto.shards.stats.BrokerFigures;
import io.pekquitto.shards.stats.ShardFigures;
import io.pekquitto.shards.stats.StoreFigures;
import io.pekquitto.shards.stats.SysExtras;
import io.pekquitto.shards.stats.SysTopics;
import io.pekquitto.shards.store.Store;
import io.pekquitto.shards.store.StoreHealth;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * Gathers the broker's figures: asks every shard for its {@link ShardFigures} (each answers on its own
 * thread, so no counter is shared between threads), adds the broker's own (uptime, heap, store, the
 * listeners' refused connections, which they count as they accept, before any shard sees them), and
 * answers whoever asked (a metrics scrape). Every {@code sys-interval} it also publishes what changed
 * under {@code $SYS/broker/...}, retained, through shard 0 like any publish.
 */
final class FiguresCollector extends AbstractBehavior<FiguresCommand> {

    /** A shard that does not answer within this (it is restarting) is left out of one round. */
    private static final Duration ROUND_TIMEOUT = Duration.ofSeconds(2);

    private final List<ActorRef<ShardMessage>> shards;
    private final List<Listener> listeners;
    private final Optional<Store> store;
    private final StoreHealth storeHealth;
    private final LongSupplier clock;
    private final long startedAt;
    private final TimerScheduler<FiguresCommand> timers;
    private final ActorRef<ShardFigures> reports;
    private final SysTopics sysTopics;
    private final SysExtras extras;
    private final Map<Integer, ShardFigures> received = new HashMap<>();
    private final List<ActorRef<BrokerFigures>> waiting = new ArrayList<>();
    private long round;
    private boolean inProgress;
    private boolean publishSys;
    private long lastPublishedAt;
    private long maximumConnected;

    static Behavior<FiguresCommand> create(List<ActorRef<ShardMessage>> shards, List<Listener> listeners,
                                           Optional<Store> store, StoreHealth storeHealth, Duration sysInterval,
                                           String version, SysExtras extras, LongSupplier clock) {
        return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
            if (!sysInterval.isZero()) timers.startTimerWithFixedDelay(FiguresCommand.Tick.INSTANCE, Duration.ZERO, sysInterval);
            return new FiguresCollector(context, timers, shards, listeners, store, storeHealth, version, extras, clock);
        }));
    }

    private FiguresCollector(ActorContext<FiguresCommand> context, TimerScheduler<FiguresCommand> timers,
                             List<ActorRef<ShardMessage>> shards, List<Listener> listeners, Optional<Store> store,
                             StoreHealth storeHealth, String version, SysExtras extras, LongSupplier clock) {
        super(context);
        this.timers = timers;
        this.shards = List.copyOf(shards);
        this.listeners = List.copyOf(listeners);
        this.store = store;
        this.storeHealth = storeHealth;
        this.clock = clock;
        this.startedAt = clock.getAsLong();
        this.lastPublishedAt = startedAt;
        this.sysTopics = new SysTopics(version);
        this.extras = extras;
        this.reports = context.messageAdapter(ShardFigures.class, FiguresCommand.Report::new);
    }

    @Override
    public Receive<FiguresCommand> createReceive() {
        return newReceiveBuilder()
                .onMessage(FiguresCommand.Collect.class, collect -> {
                    waiting.add(collect.replyTo());
                    return startRound();
                })
                .onMessageEquals(FiguresCommand.Tick.INSTANCE, () -> {
                    publishSys = true;
                    return startRound();
                })
                .onMessage(FiguresCommand.Report.class, this::onReport)
                .onMessage(FiguresCommand.RoundTimedOut.class, timedOut -> timedOut.round() == round && inProgress ? finishRound() : this)
                .build();
    }

    /** Asks every shard; a request that comes while a round is under way is answered by that round. */
    private Behavior<FiguresCommand> startRound() {
        if (inProgress) return this;
        inProgress = true;
        round++;
        received.clear();
        shards.forEach(shard -> shard.tell(new ShardCommand.GetFigures(reports)));
        timers.startSingleTimer(new FiguresCommand.RoundTimedOut(round), ROUND_TIMEOUT);
        return this;
    }

    private Behavior<FiguresCommand> onReport(FiguresCommand.Report report) {
        if (!inProgress) return this;  // late, from a round that timed out
        received.put(report.figures().shard(), report.figures());
        return received.size() < shards.size() ? this : finishRound();
    }

    private Behavior<FiguresCommand> finishRound() {
        inProgress = false;
        long now = clock.getAsLong();
        var perShard = new ArrayList<>(received.values());
        perShard.sort(Comparator.comparingInt(ShardFigures::shard));
        var runtime = Runtime.getRuntime();
        maximumConnected = Math.max(maximumConnected, BrokerFigures.connected(perShard));
        var figures = new BrokerFigures((now - startedAt) / 1_000_000_000L, perShard, maximumConnected,
                runtime.totalMemory() - runtime.freeMemory(), runtime.maxMemory(), storeFigures(),
                listeners.stream().mapToLong(listener -> listener.connections().refused()).sum());
        waiting.forEach(replyTo -> replyTo.tell(figures));
        waiting.clear();
        if (publishSys) {
            publishSys = false;
            publish(figures, now);
        }
        return this;
    }

    private StoreFigures storeFigures() {
        return store.map(kept -> new StoreFigures(true, storeHealth.isFailing(), kept.sizeOnDisk(), kept.freeSpace(),
                storeHealth.refusedCount(), storeHealth.failures())).orElse(StoreFigures.NONE);
    }

    private void publish(BrokerFigures figures, long now) {
        double seconds = (now - lastPublishedAt) / 1e9;
        lastPublishedAt = now;
        var shard = shards.get(0);
        sysTopics.changed(figures, extras.topics(), seconds).forEach((topic, value) -> shard.tell(new ShardRequest.Route(ShardRequest.Route.BROKER,
                Message.received(topic, Binary.utf8(value), QoS.AT_MOST_ONCE, true, Properties.NONE, now))));
    }
}
