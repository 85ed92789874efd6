package io.pekquitto.shards.tcp;

import java.util.Objects;

/**
 * A TLS listener's certificate, key and CA as they are now, replaceable while the listener runs (a reload
 * of its files). The listener takes the current {@link ListenerTls} for each socket it accepts: new
 * connections get the new certificate, connections made before keep the engine they have, as with
 * Mosquitto. One volatile read per accepted socket, no lock.
 */
public final class ReloadableTls {
    private volatile ListenerTls current;

    public ReloadableTls(ListenerTls initial) {
        current = Objects.requireNonNull(initial, "initial");
    }

    /** What a socket accepted now gets. */
    public ListenerTls current() {
        return current;
    }

    /** What sockets accepted from now on get, read beforehand by {@link TlsFiles#load}. */
    public void replace(ListenerTls next) {
        current = Objects.requireNonNull(next, "next");
    }
}
