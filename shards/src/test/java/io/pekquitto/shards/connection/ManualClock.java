package io.pekquitto.shards.connection;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;

/**
 * Time for actor tests, moved by the test: a test kit under Pekko's {@link ManualTime}, and the
 * nanosecond clock the actors under test are given ({@code now}), which {@link #advance} moves with it.
 */
public final class ManualClock implements LongSupplier {
    private final ActorTestKit testKit = ActorTestKit.create(ManualTime.config().withFallback(ConfigFactory.load()));
    private final ManualTime manualTime = ManualTime.get(testKit.system());
    private final AtomicLong nanos = new AtomicLong(1_000_000_000_000L);

    public ActorTestKit testKit() {
        return testKit;
    }

    @Override
    public long getAsLong() {
        return nanos.get();
    }

    /** Both clocks move: the actors' timers (Pekko's scheduler) and their {@code now}. */
    public void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
        manualTime.timePasses(duration);
    }

    public void shutdown() {
        testKit.shutdownTestKit();
    }
}
