package io.pekquitto.shards.listener;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.shards.settings.ListenerSettings;
import java.util.EnumSet;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A listener's open connections against {@code max-connections}, and the ones refused. */
class ConnectionCountTest {
    private static ConnectionCount limitedTo(int max) {
        return new ConnectionCount(new ListenerSettings("0.0.0.0", 1883, Optional.empty(), Optional.empty(), false, max,
                EnumSet.allOf(ProtocolVersion.class)));
    }

    @Test
    void theConnectionOverTheLimitIsRefusedAndCounted() {
        var count = limitedTo(2);
        assertTrue(count.tryOpen());
        assertTrue(count.tryOpen());
        assertFalse(count.tryOpen());
        assertFalse(count.tryOpen());
        assertEquals(2, count.open());
        assertEquals(2, count.refused());
    }

    @Test
    void aClosedConnectionMakesRoomForANewOne() {
        var count = limitedTo(1);
        assertTrue(count.tryOpen());
        assertFalse(count.tryOpen());
        count.closed();
        assertEquals(0, count.open());
        assertTrue(count.tryOpen());
        assertEquals(1, count.refused(), "refusals stay counted");
    }

    @Test
    void withoutALimitNoneIsRefused() {
        var count = limitedTo(ListenerSettings.UNLIMITED);
        for (int i = 0; i < 10_000; i++) assertTrue(count.tryOpen());
        assertEquals(10_000, count.open());
        assertEquals(0, count.refused());
    }

    @Test
    void acceptsRacingForTheLastPlacesNeverGoOverTheLimit() throws Exception {
        // Accepts on one thread while shards close on others: at no time more than the limit, and every
        // attempt is either let in or refused.
        int threads = 4;
        int attemptsEach = 20_000;
        var count = limitedTo(3);
        var over = new AtomicInteger();
        var admitted = new AtomicInteger();
        var start = new CountDownLatch(1);
        var pool = Executors.newFixedThreadPool(threads);
        try {
            for (int t = 0; t < threads; t++) {
                pool.execute(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < attemptsEach; i++) {
                        if (!count.tryOpen()) continue;
                        admitted.incrementAndGet();
                        if (count.open() > 3) over.incrementAndGet();
                        count.closed();
                    }
                });
            }
            start.countDown();
        } finally {
            pool.shutdown();
            assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        }
        assertEquals(0, over.get());
        assertEquals(0, count.open());
        assertEquals((long) threads * attemptsEach, admitted.get() + count.refused());
    }
}
