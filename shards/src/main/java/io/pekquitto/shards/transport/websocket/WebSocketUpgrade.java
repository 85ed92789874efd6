package io.pekquitto.shards.transport.websocket;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.pekquitto.shards.settings.WebSocketSettings;
import java.util.Set;

/**
 * The handlers of one WebSocket listener's connections, between the socket (or TLS) and the connection's
 * transport: Netty's HTTP codec, the request's aggregation and {@link WebSocketRequests}, which answers
 * the requests and upgrades the connection (its frames read by {@link StreamingFrameDecoder}, written by
 * Netty's encoder, MQTT's bytes carried by {@link MqttOverWebSocketFrames}). Made once per listener on each
 * shard: what it holds is shared by the listener's connections there.
 */
public final class WebSocketUpgrade {
    /**
     * The subprotocols MQTT over WebSockets is asked for by: {@code mqtt} (MQTT 3.1.1 and 5, 6.0), and
     * {@code mqttv3.1}, which MQTT 3.1 clients ask for. A request that names neither is refused (400).
     */
    static final Set<String> SUBPROTOCOLS = Set.of("mqtt", "mqttv3.1");

    /** The largest body of a request: an upgrade or a GET has none. */
    private static final int REQUEST_BODY = 1024;

    private final WebSocketRequests requests;

    /**
     * @param maxFrameSize the largest frame a client may send ({@code max-packet-size}): one MQTT packet of the
     *                     largest size fits in one frame, as clients send them; its bytes reach the
     *                     connection as they come, whatever the frame's size
     */
    public WebSocketUpgrade(WebSocketSettings settings, int maxFrameSize) {
        this.requests = new WebSocketRequests(settings, maxFrameSize);
    }

    /** Adds the handlers to a new connection's pipeline, after the PROXY header's and TLS's, before its transport. */
    public void addTo(ChannelPipeline pipeline) {
        pipeline.addLast(new HttpServerCodec(), new HttpObjectAggregator(REQUEST_BODY), requests);
    }

    /** Whether a {@code Sec-WebSocket-Protocol} header's list (null if none) names an MQTT subprotocol. */
    static boolean asksForMqtt(String requested) {
        if (requested == null) return false;
        for (var subprotocol : requested.split(",")) {
            if (SUBPROTOCOLS.contains(subprotocol.trim())) return true;
        }
        return false;
    }
}
