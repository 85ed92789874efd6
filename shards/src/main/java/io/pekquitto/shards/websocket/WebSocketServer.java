package io.pekquitto.shards.websocket;

import com.typesafe.config.ConfigFactory;
import io.pekquitto.auth.tls.CertificateNames;
import io.pekquitto.shards.settings.ListenerSettings;
import io.pekquitto.shards.tcp.ReloadableTls;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.http.javadsl.ConnectionContext;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.model.AttributeKeys;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.settings.ServerSettings;

/**
 * Binds a WebSocket listener's HTTP server: Pekko HTTP with the settings an MQTT listener needs,
 * whatever the embedding system's configuration says, and HTTPS (wss) with the listener's certificate
 * as it is when each connection is accepted.
 */
public final class WebSocketServer {
    /**
     * What an MQTT connection over WebSockets needs of Pekko HTTP's defaults, whatever the embedding system
     * says: no cap of its own on connections (the listener's {@code max-connections} is the limit); the
     * client's address and TLS session on each request, for the log, the ACLs and the certificate's CN; and
     * an idle timeout of the broker's {@code connect-timeout}, so that a connection that never completes its
     * upgrade is closed as a TCP connection that sends no CONNECT is. Once upgraded, a quiet connection is
     * kept open by a Pong frame every half of it (a heartbeat the client need not answer, RFC 6455 5.5.3);
     * MQTT's own keep-alive decides when a silent client is gone.
     */
    private static final String SERVER_SETTINGS = """
            pekko.http.server {
              idle-timeout = %1$d ms
              max-connections = 2147483647
              remote-address-attribute = on
              parsing.ssl-session-attribute = on
              server-header = pekquitto
              websocket.periodic-keep-alive-mode = pong
              websocket.periodic-keep-alive-max-idle = %2$d ms
            }
            """;

    private WebSocketServer() {}

    /** Where an accepted WebSocket goes, on the server's threads: its stream, once it runs, and the client. */
    @FunctionalInterface
    public interface Accepted {
        void accept(WebSocketStream stream, InetSocketAddress client, Optional<String> peerCommonName);
    }

    public static CompletionStage<ServerBinding> bind(ActorSystem system, ListenerSettings listener, Duration connectTimeout,
                                                      Optional<ReloadableTls> tls, Accepted accepted) {
        var websocket = listener.websocket().orElseThrow(() -> new IllegalArgumentException("not a WebSocket listener"));
        var timeout = Math.max(2, connectTimeout.toMillis());
        var settings = ServerSettings.create(ConfigFactory.parseString(SERVER_SETTINGS.formatted(timeout, timeout / 2))
                .withFallback(system.settings().config()));
        var requests = new WebSocketRequests(websocket, new StatusPage(websocket.path()), accepted,
                request -> peerCommonName(request, tls));
        var server = Http.get(system).newServerAt(listener.host(), listener.port()).withSettings(settings);
        if (tls.isPresent()) {
            // The engine of the certificate current now: a reload between two connections applies from the second.
            server = server.enableHttps(ConnectionContext.httpsServer(() -> tls.get().current().newEngine().apply(null)));
        }
        return server.bindSync(requests::handle);
    }

    private static Optional<String> peerCommonName(HttpRequest request, Optional<ReloadableTls> tls) {
        if (tls.isEmpty() || !tls.get().current().certificateNameAsUsername()) return Optional.empty();
        return request.getAttribute(AttributeKeys.sslSession)
                .flatMap(session -> CertificateNames.peerCommonName(session.getSession()));
    }
}
