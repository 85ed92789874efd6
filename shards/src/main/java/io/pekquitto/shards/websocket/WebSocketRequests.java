package io.pekquitto.shards.websocket;

import io.pekquitto.shards.settings.WebSocketSettings;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.apache.pekko.http.javadsl.model.AttributeKeys;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.model.ws.WebSocketUpgrade;

/**
 * What a WebSocket listener answers to an HTTP request: on its path, a WebSocket upgrade with the
 * {@code mqtt} subprotocol becomes an MQTT connection; elsewhere the status page's files, if it serves
 * them; anything else an HTTP error that says what was wrong. Called on Pekko HTTP's threads: immutable.
 */
final class WebSocketRequests {
    /**
     * The subprotocols MQTT over WebSockets is asked for by: {@code mqtt} (MQTT 3.1.1 and 5, 6.0), and
     * {@code mqttv3.1}, which MQTT 3.1 clients ask for.
     */
    private static final Set<String> SUBPROTOCOLS = Set.of("mqtt", "mqttv3.1");

    private final WebSocketSettings settings;
    private final StatusPage statusPage;
    private final WebSocketServer.Accepted accepted;
    private final Function<HttpRequest, Optional<String>> peerCommonName;

    /**
     * @param peerCommonName the verified client certificate's CN of the request's connection, if it stands for
     *                       the username on this listener
     */
    WebSocketRequests(WebSocketSettings settings, StatusPage statusPage, WebSocketServer.Accepted accepted,
                      Function<HttpRequest, Optional<String>> peerCommonName) {
        this.settings = settings;
        this.statusPage = statusPage;
        this.accepted = accepted;
        this.peerCommonName = peerCommonName;
    }

    HttpResponse handle(HttpRequest request) {
        var path = request.getUri().path();
        if (path.equals(settings.path())) return upgrade(request);
        if (settings.statusPage() && request.method().equals(HttpMethods.GET)) {
            var file = statusPage.file(path.equals("/") ? StatusPage.INDEX : path.substring(1));
            if (file.isPresent()) return file.get();
        }
        return error(StatusCodes.NOT_FOUND, "nothing at " + path + ": MQTT over WebSockets is at " + settings.path());
    }

    private HttpResponse upgrade(HttpRequest request) {
        Optional<WebSocketUpgrade> upgrade = request.getAttribute(AttributeKeys.webSocketUpgrade);
        if (upgrade.isEmpty()) {
            return error(StatusCodes.UPGRADE_REQUIRED, settings.path() + " speaks MQTT over WebSockets only")
                    .addHeader(RawHeader.create("Upgrade", "websocket"));
        }
        String subprotocol = null;
        for (var requested : upgrade.get().getRequestedProtocols()) {
            if (SUBPROTOCOLS.contains(requested)) {
                subprotocol = requested;
                break;
            }
        }
        if (subprotocol == null) {
            return error(StatusCodes.BAD_REQUEST, "MQTT over WebSockets needs the subprotocol mqtt (Sec-WebSocket-Protocol)");
        }
        var client = client(request);
        var name = peerCommonName.apply(request);
        return upgrade.get().handleMessagesWith(WebSocketStream.flow(stream -> accepted.accept(stream, client, name)), subprotocol);
    }

    private static InetSocketAddress client(HttpRequest request) {
        var remote = request.getAttribute(AttributeKeys.remoteAddress);
        if (remote.isEmpty() || remote.get().getAddress().isEmpty()) return InetSocketAddress.createUnresolved("unknown", 0);
        return new InetSocketAddress(remote.get().getAddress().get(), remote.get().getPort());
    }

    static HttpResponse error(StatusCode status, String message) {
        return HttpResponse.create().withStatus(status).withEntity(ContentTypes.TEXT_PLAIN_UTF8, message + "\n");
    }
}
