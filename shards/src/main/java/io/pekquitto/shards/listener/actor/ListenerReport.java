package io.pekquitto.shards.listener.actor;

import io.pekquitto.shards.tcp.ReloadableTls;
import java.net.InetSocketAddress;
import java.util.Optional;

/** What a listener tells the broker about its bind, once. */
public sealed interface ListenerReport {

    /** Listener {@code index} is bound, with its TLS files read. */
    record Bound(int index, InetSocketAddress address, Optional<ReloadableTls> tls) implements ListenerReport {}

    /** Listener {@code index} could not read its TLS files or bind its address, for {@code cause}. */
    record Failed(int index, String cause) implements ListenerReport {}
}
