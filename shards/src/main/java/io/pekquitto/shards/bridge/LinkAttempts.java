package io.pekquitto.shards.bridge;

import io.pekquitto.shards.settings.BridgeSettings;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.function.DoubleSupplier;

/**
 * Which address a bridge tries next and when, as Mosquitto's bridges do: a failed attempt moves on to the
 * next address; a link lost after it was up starts again at the first one, unless {@code round-robin}
 * moves on; the wait before each attempt grows by {@link Backoff} until a link is up. {@code once} never
 * tries again; {@code lazy} only while enough messages wait to go out.
 */
final class LinkAttempts {
    private final BridgeSettings bridge;
    private final Backoff backoff;
    private int index;

    LinkAttempts(BridgeSettings bridge, DoubleSupplier random) {
        this.bridge = bridge;
        this.backoff = new Backoff(bridge.restartBase(), bridge.restartCap(), random);
    }

    /** The address of the next (or current) attempt. */
    BridgeSettings.Address current() {
        return bridge.addresses().get(index);
    }

    /** A link is up: the waits start from the base again. */
    void up() {
        backoff.reset();
    }

    /** An attempt failed: the wait before the next one, at the next address; empty if none is to be made now. */
    Optional<Duration> failed(int waitingMessages) {
        index = (index + 1) % bridge.addresses().size();
        return next(waitingMessages);
    }

    /** A link that was up is lost: the wait before the next attempt; empty if none is to be made now. */
    Optional<Duration> lost(int waitingMessages) {
        index = bridge.roundRobin() ? (index + 1) % bridge.addresses().size() : 0;
        return next(waitingMessages);
    }

    /** The address's host looked up: a blocking call, for a thread other than the shard's. */
    static InetSocketAddress resolve(BridgeSettings.Address address) {
        try {
            return new InetSocketAddress(InetAddress.getByName(address.host()), address.port());
        } catch (UnknownHostException e) {
            throw new CompletionException(e);
        }
    }

    private Optional<Duration> next(int waitingMessages) {
        return switch (bridge.startType()) {
            case ONCE -> Optional.empty();
            case LAZY -> waitingMessages >= bridge.threshold() ? Optional.of(backoff.next()) : Optional.empty();
            case AUTOMATIC -> Optional.of(backoff.next());
        };
    }
}
