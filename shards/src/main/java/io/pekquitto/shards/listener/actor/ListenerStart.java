package io.pekquitto.shards.listener.actor;

import io.pekquitto.auth.tls.TlsConfigurationException;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.tcp.ReloadableTls;
import io.pekquitto.shards.tcp.TlsFiles;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every kind of listener does around its bind: read its TLS files first (and log whose TLS serves it),
 * report a failed bind.
 */
final class ListenerStart {
    private static final Logger LOG = LoggerFactory.getLogger(ListenerStart.class);

    private ListenerStart() {}

    /**
     * The listener's TLS, its files read now, so that a bad file stops the broker at start naming the file;
     * null if they cannot be used, which has been reported to the broker.
     */
    static Optional<ReloadableTls> readTls(Listener listener, org.apache.pekko.actor.typed.ActorRef<ListenerReport> broker) {
        var settings = listener.settings();
        if (settings.tls().isEmpty()) return Optional.empty();
        try {
            var tls = TlsFiles.load(settings.tls().get());
            LOG.info("listener {}:{} serves TLS with {}", settings.host(), settings.port(), tls.implementation());
            return Optional.of(new ReloadableTls(tls));
        } catch (TlsConfigurationException e) {
            broker.tell(new ListenerReport.Failed(listener.index(), "listener " + settings.host() + ":" + settings.port()
                    + ": " + e.getMessage()));
            return null;
        }
    }

    /** What the broker hears when {@code listener} cannot bind its address. */
    static ListenerReport.Failed cannotBind(Listener listener, String why) {
        var settings = listener.settings();
        return new ListenerReport.Failed(listener.index(), "cannot bind " + settings.host() + ":" + settings.port() + ": " + why);
    }
}
