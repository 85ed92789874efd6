package io.pekquitto.ops;

import io.pekquitto.shards.stats.BrokerFigures;
import io.pekquitto.shards.stats.StoreFigures;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The broker's figures for a metrics scrape: gathered from the shards at most once per {@link #MAX_AGE}
 * (one scrape reads them for every metric), and the last ones if the shards do not answer in time.
 * Called from the metrics server's threads; synchronized, as scrapes may overlap.
 */
final class FreshFigures {
    static final Duration MAX_AGE = Duration.ofMillis(500);
    private static final Duration WAIT = Duration.ofSeconds(3);
    private static final BrokerFigures NONE = new BrokerFigures(0, List.of(), 0, 0, 0, StoreFigures.NONE, 0);

    private final Supplier<CompletionStage<BrokerFigures>> collect;
    private final LongSupplier clock;
    private BrokerFigures last = NONE;
    private long gatheredAt = Long.MIN_VALUE;

    FreshFigures(Supplier<CompletionStage<BrokerFigures>> collect, LongSupplier clock) {
        this.collect = collect;
        this.clock = clock;
    }

    synchronized BrokerFigures get() {
        long now = clock.getAsLong();
        if (gatheredAt != Long.MIN_VALUE && now - gatheredAt < MAX_AGE.toNanos()) return last;
        try {
            last = collect.get().toCompletableFuture().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            gatheredAt = now;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // The broker is stopping or overloaded: the scrape shows the last figures.
        }
        return last;
    }
}
