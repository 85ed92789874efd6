package io.pekquitto.shards.connection;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.ManualTime;

/**
 * Time for actor tests, moved by the test: a test kit under Pekko's {@link ManualTime}, and the
 * nanosecond clock the actors under test are given ({@code now}), which {@link #advance} moves with it.
 * It also plays the shard's deadline queue for the connections it {@link #watch}es: once their deadline
 * has come, each advance tells them {@link Connection.DeadlineCheck}, as the shard's timer would.
 */
public final class ManualClock implements LongSupplier {
    private final ActorTestKit testKit = ActorTestKit.create(ManualTime.config().withFallback(ConfigFactory.load()));
    private final ManualTime manualTime = ManualTime.get(testKit.system());
    private final AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
    private final List<ConnectionRef> watched = new CopyOnWriteArrayList<>();

    public ActorTestKit testKit() {
        return testKit;
    }

    @Override
    public long getAsLong() {
        return nanos.get();
    }

    /** Both clocks move: the actors' timers (Pekko's scheduler) and their {@code now}; then the deadlines that came are told. */
    public void advance(Duration duration) {
        long now = nanos.addAndGet(duration.toNanos());
        manualTime.timePasses(duration);
        for (var connection : watched) {
            long deadline = connection.deadline();
            if (deadline != Long.MAX_VALUE && deadline - now <= 0) connection.tell(Connection.DeadlineCheck.INSTANCE);
        }
    }

    /**
     * Waits until {@code connection}'s actor has a deadline no later than {@code after} from now. The
     * actor sets it on its own thread after it tells what changed, which the test may have seen first:
     * an {@link #advance} before it would find no deadline to tell.
     */
    public void awaitDeadlineWithin(ConnectionRef connection, Duration after) throws InterruptedException {
        long by = nanos.get() + after.toNanos();
        for (int waited = 0; connection.deadline() - by > 0; waited++) {
            if (waited == 3_000) throw new AssertionError("no deadline within " + after + " after 3 s");
            Thread.sleep(1);  // the actor's write shows once it has run; the sleep keeps the read in the loop
        }
    }

    /** Tells {@code connection} when its deadline has come, as the shard's queue does. */
    public void watch(ConnectionRef connection) {
        watched.add(connection);
    }

    public void shutdown() {
        testKit.shutdownTestKit();
    }
}
