package io.pekquitto.e2e.store;

import io.pekquitto.auth.Security;
import io.pekquitto.ops.Pekquitto;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.store.InterceptedStore;
import io.pekquitto.shards.store.StoreException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.UnaryOperator;
import org.slf4j.LoggerFactory;

/**
 * The broker with its store's writes failing while a file exists, as a disk that fills and is given room
 * again: {@code FaultyStoreBroker FILE -c CONFIG}, started as a child process by {@link StoreFailureIT}
 * ({@code RunnableJar.startMain}), so that it can also be killed with SIGKILL while its store fails. Its
 * RocksDB store is real; only the writes through the {@code Store} seam fail, as RocksDB's do when its
 * disk is full, and {@code Store.recover()} succeeds once the file is gone.
 */
public final class FaultyStoreBroker {
    private FaultyStoreBroker() {}

    public static void main(String[] args) throws Exception {
        var faults = Path.of(args[0]);
        var settings = BrokerSettings.parse(Files.readString(Path.of(args[2])));
        var broker = Pekquitto.start(settings, Security.OPEN, UnaryOperator.identity(), store -> new InterceptedStore(store, batch -> {
            if (Files.exists(faults)) throw new StoreException("store: a write failed: No space left on device (injected)", null);
        }));
        var address = broker.boundAddresses().get(0);
        LoggerFactory.getLogger(FaultyStoreBroker.class).info("pekquitto (store failing while {} exists) listening on [{}:{}]",
                faults, address.getHostString(), address.getPort());
        broker.awaitTermination();
    }
}
