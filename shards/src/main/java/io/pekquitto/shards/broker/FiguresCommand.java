package io.pekquitto.shards.broker;

import io.pekquitto.shards.stats.BrokerFigures;
import io.pekquitto.shards.stats.ShardFigures;
import org.apache.pekko.actor.typed.ActorRef;

/** What the {@link FiguresCollector} hears: the broker's requests, and its own timers and shards' reports. */
sealed interface FiguresCommand {

    /** From the broker: fresh figures, gathered now. */
    record Collect(ActorRef<BrokerFigures> replyTo) implements FiguresCommand {}

    /** Its {@code sys-interval} timer: time to publish $SYS. */
    enum Tick implements FiguresCommand { INSTANCE }

    /** A shard's figures, through the collector's message adapter. */
    record Report(ShardFigures figures) implements FiguresCommand {}

    /** Its timer: round {@code round} is over, whichever shard has not answered. */
    record RoundTimedOut(long round) implements FiguresCommand {}
}
