package io.pekquitto.shards.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The store's health: failing on a failed write until it recovers, told once, logged at most once a minute. */
class StoreHealthTest {
    private final AtomicLong nanos = new AtomicLong(1);
    private final StoreHealth health = new StoreHealth("store /data", nanos::get);
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(StoreHealth.class);

    @BeforeEach
    void captureTheLog() {
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void release() {
        logger.detachAppender(log);
    }

    private static StoreException noSpace() {
        return new StoreException("store /data: a write failed: No space left on device", null);
    }

    private void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }

    private List<String> lines() {
        return log.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void aFailedWriteMakesItFailingUntilItRecoversAndTheListenersHearEachChangeOnce() {
        var failing = new AtomicInteger();
        var recovered = new AtomicInteger();
        health.onFailing(failing::incrementAndGet);
        health.onRecovered(recovered::incrementAndGet);
        assertFalse(health.isFailing());

        health.failed(noSpace());
        health.failed(noSpace());  // another shard, the same failure
        assertTrue(health.isFailing());
        assertEquals(1, failing.get(), "one failure, however many shards saw it");
        assertEquals(1, health.failures());

        health.recovered();
        health.recovered();
        assertFalse(health.isFailing());
        assertEquals(1, recovered.get());

        health.failed(noSpace());
        assertEquals(2, failing.get(), "a new failure");
        assertEquals(2, health.failures());
    }

    @Test
    void theFailureIsLoggedWithThePathAndTheCauseThenAtMostOnceAMinute() {
        health.failed(noSpace());
        advance(Duration.ofSeconds(30));
        health.failed(noSpace());  // the recovery's next try
        assertEquals(1, lines().size(), lines().toString());
        assertTrue(lines().get(0).contains("store /data cannot write"), lines().get(0));
        assertTrue(lines().get(0).contains("No space left on device"), lines().get(0));

        advance(Duration.ofSeconds(31));
        health.failed(noSpace());
        assertEquals(2, lines().size(), "a minute later: once more");

        health.recovered();
        assertEquals(3, lines().size());
        assertTrue(lines().get(2).contains("writes again, after 61000 ms"), lines().get(2));

        advance(Duration.ofSeconds(5));
        health.failed(noSpace());  // failing again within the minute: not told again...
        health.recovered();  // ...nor its end
        assertEquals(3, lines().size(), lines().toString());
    }

    @Test
    void refusalsAreCounted() {
        health.refused();
        health.refused();
        assertEquals(2, health.refusedCount());
    }

    @Test
    void aBrokerWithoutAStoreNeverFails() {
        assertFalse(StoreHealth.none().isFailing());
    }
}
