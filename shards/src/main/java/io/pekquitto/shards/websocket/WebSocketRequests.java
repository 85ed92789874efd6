package io.pekquitto.shards.websocket;

import io.pekquitto.shards.settings.WebSocketSettings;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
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

    WebSocketRequests(WebSocketSettings settings, StatusPage statusPage) {
        this.settings = settings;
        this.statusPage = statusPage;
    }

    /** @param upgraded gets the connection's stream once an upgrade to MQTT over WebSockets runs */
    HttpResponse handle(HttpRequest request, Consumer<WebSocketStream> upgraded) {
        var path = request.getUri().path();
        if (path.equals(settings.path())) return upgrade(request, upgraded);
        if (settings.statusPage() && request.method().equals(HttpMethods.GET)) {
            var file = statusPage.file(path.equals("/") ? StatusPage.INDEX : path.substring(1));
            if (file.isPresent()) return file.get();
        }
        return error(StatusCodes.NOT_FOUND, "nothing at " + path + ": MQTT over WebSockets is at " + settings.path());
    }

    private HttpResponse upgrade(HttpRequest request, Consumer<WebSocketStream> upgraded) {
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
        return upgrade.get().handleMessagesWith(WebSocketStream.flow(upgraded), subprotocol);
    }

    static HttpResponse error(StatusCode status, String message) {
        return HttpResponse.create().withStatus(status).withEntity(ContentTypes.TEXT_PLAIN_UTF8, message + "\n");
    }
}
