package io.pekquitto.shards.transport;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;
import java.util.function.LongSupplier;

/**
 * How a shard's event loop waits for work: when it runs out, it keeps looking (a non-blocking poll of
 * its sockets, its task queue) for {@code spinNanos} before it sleeps in {@code epoll_wait}, because a
 * busy client's next packet, or the reply a shard waits for, usually comes within microseconds, and one
 * that comes while the loop spins is handled without the wake-up of a sleeping thread. Idle past that,
 * it sleeps and uses no CPU.
 */
final class SpinThenSleep implements SelectStrategy {
    private final long spinNanos;
    private final LongSupplier clock;
    /** When the loop last found nothing to do after having work, or 0 while it has work. */
    private long idleSince;

    SpinThenSleep(long spinNanos, LongSupplier clock) {
        this.spinNanos = spinNanos;
        this.clock = clock;
    }

    @Override
    public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
        int ready = selectNow.get();
        if (ready > 0 || hasTasks) {
            idleSince = 0;
            return ready;
        }
        long now = clock.getAsLong();
        if (idleSince == 0) idleSince = now;
        if (now - idleSince < spinNanos) {
            Thread.onSpinWait();
            return SelectStrategy.CONTINUE;
        }
        idleSince = 0;
        return SelectStrategy.SELECT;
    }
}
