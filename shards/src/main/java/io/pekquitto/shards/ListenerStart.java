package io.pekquitto.shards;

import io.pekquitto.auth.tls.TlsConfigurationException;
import io.pekquitto.shards.settings.ListenerSettings;
import io.pekquitto.shards.tcp.ReloadableTls;
import io.pekquitto.shards.tcp.TlsFiles;
import java.util.Optional;

/** What every kind of listener does before it binds: read its TLS files, if it has any. */
final class ListenerStart {
    private ListenerStart() {}

    /**
     * The listener's TLS, its files read now, so that a bad file stops the broker at start naming the file;
     * null if they cannot be used, which has been reported to the broker.
     */
    static Optional<ReloadableTls> readTls(int index, ListenerSettings settings,
                                           org.apache.pekko.actor.typed.ActorRef<Broker.Command> broker) {
        if (settings.tls().isEmpty()) return Optional.empty();
        try {
            return Optional.of(new ReloadableTls(TlsFiles.load(settings.tls().get())));
        } catch (TlsConfigurationException e) {
            broker.tell(new Broker.ListenerFailed(index, "listener " + settings.host() + ":" + settings.port()
                    + ": " + e.getMessage()));
            return null;
        }
    }
}
