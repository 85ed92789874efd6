package io.pekquitto.shards.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.Test;

/** The recovery tries again and again, on its own thread, until the store writes; then the shards are told. */
class StoreRecoveryTest {
    @Test
    void aFailingStoreIsTriedUntilItRecoversAndThenTheHealthSaysSo() throws InterruptedException {
        var tries = new AtomicInteger();
        Store store = new Store() {
            @Override
            public void recover() {
                if (tries.incrementAndGet() < 3) throw new StoreException("only 12 bytes are free on its filesystem", null);
            }

            @Override
            public void write(StoreBatch batch) {}

            @Override
            public Optional<byte[]> get(Keyspace keyspace, byte[] key) {
                return Optional.empty();
            }

            @Override
            public void scan(Keyspace keyspace, byte[] from, byte[] to, BiPredicate<byte[], byte[]> entry) {}

            @Override
            public void close() {}
        };
        var health = new StoreHealth("store", System::nanoTime);
        var recovered = new CountDownLatch(1);
        health.onRecovered(recovered::countDown);
        try (var recovery = new StoreRecovery(store, health)) {
            health.failed(new StoreException("No space left on device", null));
            assertTrue(recovered.await(10, TimeUnit.SECONDS), "recovered after " + tries.get() + " tries");
            assertEquals(3, tries.get(), "two failed tries, then one that wrote");
            assertFalse(health.isFailing());
        }
    }
}
