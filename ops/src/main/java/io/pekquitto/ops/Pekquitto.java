package io.pekquitto.ops;

import io.pekquitto.shards.BrokerSettings;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * A running broker in its own actor system: the standalone entry point behind {@code Main} and the
 * simplest way to embed pekquitto. Teams with their own {@code ActorSystem} spawn
 * {@code io.pekquitto.shards.Broker.create(settings)} instead.
 */
public final class Pekquitto implements AutoCloseable {

    private Pekquitto() {}

    /** Starts the broker and returns once every listener is bound. */
    public static Pekquitto start(BrokerSettings settings) {
        throw new UnsupportedOperationException("not written yet");
    }

    /** The bound address of each listener, in configuration order (port 0 resolved). */
    public List<InetSocketAddress> boundAddresses() {
        throw new UnsupportedOperationException("not written yet");
    }

    /** Blocks until the broker has stopped (for {@code Main}). */
    public void awaitTermination() {
        throw new UnsupportedOperationException("not written yet");
    }

    /** Stops the broker: listeners unbound, clients disconnected, the actor system terminated. */
    @Override
    public void close() {
        throw new UnsupportedOperationException("not written yet");
    }
}
