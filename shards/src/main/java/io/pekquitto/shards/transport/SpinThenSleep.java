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
 *
 * <p>It spins only while spinning pays: while at least half of its last {@link #WINDOW} idle moments ended
 * within the spin time (work came during the spin, or, when it slept at once, the wake-up came that soon).
 * Where the next work is milliseconds away (TLS handshakes, whose client computes between its messages, or
 * a trickle of connects), every spin would burn its time for nothing, on a core the clients may need.
 */
final class SpinThenSleep implements SelectStrategy {
    /** How many of the last idle moments decide whether the next one spins. */
    static final int WINDOW = 16;
    private static final int ALL = (1 << WINDOW) - 1;

    private final long spinNanos;
    private final LongSupplier clock;
    /** When the loop started spinning, or 0 while it has work or sleeps. */
    private long idleSince;
    /** When the loop went to sleep without spinning, or 0: its wake-up tells whether a spin would have paid. */
    private long sleptAt;
    /** The last {@link #WINDOW} idle moments, the newest in the lowest bit: 1 if work came within the spin time. */
    private int recent = ALL;

    SpinThenSleep(long spinNanos, LongSupplier clock) {
        this.spinNanos = spinNanos;
        this.clock = clock;
    }

    @Override
    public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
        int ready = selectNow.get();
        if (ready > 0 || hasTasks) {
            if (idleSince != 0) {
                remember(true);  // work came during the spin
                idleSince = 0;
            } else if (sleptAt != 0) {
                wokeUp(clock.getAsLong());
            }
            return ready;
        }
        if (spinNanos == 0) return SelectStrategy.SELECT;
        long now = clock.getAsLong();
        if (sleptAt != 0) wokeUp(now);
        if (idleSince == 0) {
            if (Integer.bitCount(recent) < WINDOW / 2) {
                sleptAt = now;
                return SelectStrategy.SELECT;
            }
            idleSince = now;
        }
        if (now - idleSince < spinNanos) {
            Thread.onSpinWait();
            return SelectStrategy.CONTINUE;
        }
        remember(false);  // spun for nothing; the sleep after it is not counted again
        idleSince = 0;
        return SelectStrategy.SELECT;
    }

    /** Back from a sleep without a spin: a spin would have paid if the work came within its time. */
    private void wokeUp(long now) {
        remember(now - sleptAt < spinNanos);
        sleptAt = 0;
    }

    private void remember(boolean workCameWithinTheSpin) {
        recent = ((recent << 1) | (workCameWithinTheSpin ? 1 : 0)) & ALL;
    }
}
