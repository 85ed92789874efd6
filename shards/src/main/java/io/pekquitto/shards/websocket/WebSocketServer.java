package io.pekquitto.shards.websocket;

import com.typesafe.config.ConfigFactory;
import io.pekquitto.auth.tls.CertificateNames;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.tcp.ReloadableTls;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.model.AttributeKeys;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.settings.ServerSettings;
import org.apache.pekko.io.TcpSO;
import org.apache.pekko.stream.ActorAttributes;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.TLSClosing;
import org.apache.pekko.stream.TLSProtocol;
import org.apache.pekko.stream.javadsl.BidiFlow;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.TLS;
import org.apache.pekko.stream.javadsl.TLSPlacebo;
import org.apache.pekko.stream.javadsl.Tcp;
import org.apache.pekko.util.ByteString;

/**
 * A WebSocket listener's server: Pekko HTTP's server layer over Pekko Streams' TCP, put together per
 * connection rather than by {@code Http.newServerAt}, so that what a listener does to every connection
 * holds here as on its TCP listeners: a place in {@code max-connections} taken before a byte is read (one
 * over is closed at once, counted refused) and given back when the connection ends; the PROXY protocol
 * header read before anything else on a listener with {@code proxy-protocol} ({@link ProxyHeaderStage});
 * then TLS (wss) with the listener's certificate as it is when the connection is accepted, then HTTP.
 */
public final class WebSocketServer {
    /**
     * What an MQTT connection over WebSockets needs of Pekko HTTP's defaults, whatever the embedding system
     * says: each request's TLS session, for a certificate's CN, and a quiet upgraded connection kept open by
     * a Pong frame every half of {@code connect-timeout} (%1$d ms: a heartbeat the client need not answer,
     * RFC 6455 5.5.3), since the connection's idle timeout is {@code connect-timeout}: a connection that
     * never completes its upgrade (or its PROXY header) is closed as a TCP connection that sends no CONNECT
     * is; MQTT's own keep-alive decides when an upgraded client is gone.
     */
    private static final String SERVER_SETTINGS = """
            pekko.http.server {
              parsing.ssl-session-attribute = on
              server-header = pekquitto
              websocket.periodic-keep-alive-mode = pong
              websocket.periodic-keep-alive-max-idle = %1$d ms
            }
            """;
    private static final int BACKLOG = 1024;
    /**
     * Where a connection's end is counted: on the thread that completes it, the stream's own. Not through
     * {@code whenComplete} on Pekko's futures: Scala's {@code CompletionStage} for them makes every callback
     * async on the common pool, and on a machine of two cores that pool is a new thread per task (measured,
     * when the transport's reads came that way: a thread started for every chunk read, and 600 us more per
     * QoS 1 round trip).
     */
    private static final Executor ON_THE_STREAMS_THREAD = Runnable::run;

    private WebSocketServer() {}

    /** Where a listener's connections are served: a shard chosen for each as it is accepted. */
    @FunctionalInterface
    public interface Placement {
        Place next();
    }

    /**
     * One connection's shard, chosen before a byte is read so that the connection's stream runs on the
     * shard's thread (its dispatcher): the bytes of a WebSocket go from the socket to the connection actor
     * and back without crossing to another thread.
     */
    public interface Place {
        /** The configuration path of the shard's dispatcher. */
        String dispatcher();

        /** The connection is an upgraded WebSocket, its stream running (called on the stream's thread). */
        void upgraded(WebSocketStream stream, InetSocketAddress client, Optional<String> peerCommonName);

        /** The connection ended without becoming a WebSocket (a page, an HTTP error, a timeout). */
        void unused();
    }

    /** Binds the listener; the binding's {@code unbind} stops accepting (open connections stay). */
    public static CompletionStage<Tcp.ServerBinding> bind(ActorSystem system, Listener listener, Duration connectTimeout,
                                                          Optional<ReloadableTls> tls, Placement placement) {
        var settings = listener.settings();
        var websocket = settings.websocket().orElseThrow(() -> new IllegalArgumentException("not a WebSocket listener"));
        var timeout = Duration.ofMillis(Math.max(2, connectTimeout.toMillis()));
        var server = ServerSettings.create(ConfigFactory.parseString(SERVER_SETTINGS.formatted(timeout.toMillis() / 2))
                .withFallback(system.settings().config()));
        var requests = new WebSocketRequests(websocket, new StatusPage(websocket.path()));
        // The layers every connection has, from HTTP down: made once; each materialization gets its own
        // stages (and TLS its own engine, of the certificate current then).
        var layers = Http.get(system).serverLayer(server)
                .atop(tls.isPresent() ? tls(tls.get()) : placebo())
                .atop(BidiFlow.<ByteString, ByteString>bidirectionalIdleTimeout(timeout));
        var materializer = Materializer.matFromSystem(system);
        return Tcp.get(system).bind(settings.host(), settings.port(), BACKLOG, List.of(TcpSO.tcpNoDelay(true)), false,
                        Optional.empty())
                .to(Sink.foreach(connection -> {
                    if (!listener.connections().tryOpen()) {
                        connection.handleWith(Flow.fromSinkAndSource(Sink.cancelled(), Source.empty()), materializer);
                        return;
                    }
                    var place = placement.next();
                    connection.flow().join(serve(layers, listener, tls, requests, connection.remoteAddress(), place))
                            .withAttributes(ActorAttributes.dispatcher(place.dispatcher()))
                            .run(materializer);
                }))
                .run(materializer);
    }

    /**
     * One connection, from the network up: its PROXY header if the listener reads one, the listener's
     * {@code layers} (idle timeout, TLS, HTTP), then the requests, which know the client.
     */
    private static Flow<ByteString, ByteString, NotUsed> serve(
            BidiFlow<HttpResponse, ByteString, ByteString, HttpRequest, NotUsed> layers, Listener listener,
            Optional<ReloadableTls> tls, WebSocketRequests requests, InetSocketAddress peer, Place place) {
        var client = new ProxyHeaderStage.Client(peer);
        if (listener.expectsProxyHeader()) layers = layers.atop(ProxyHeaderStage.bidi(client));
        var upgraded = new AtomicBoolean();
        var handler = Flow.<HttpRequest>create().map(request -> requests.handle(request, stream -> {
            upgraded.set(true);
            place.upgraded(stream, client.address(), peerCommonName(request, tls));
        }));
        return layers.reversed().join(handler)
                .watchTermination((notUsed, ended) -> {
                    ended.whenCompleteAsync((done, failure) -> {
                        if (!upgraded.get()) place.unused();
                        listener.connections().closed();
                    }, ON_THE_STREAMS_THREAD);
                    return notUsed;
                });
    }

    /** The engine of the certificate current now: a reload between two connections applies from the second. */
    private static BidiFlow<TLSProtocol.SslTlsOutbound, ByteString, ByteString, TLSProtocol.SslTlsInbound, NotUsed> tls(
            ReloadableTls tls) {
        return TLS.create(() -> tls.current().newEngine(), TLSClosing.eagerClose());
    }

    @SuppressWarnings("unchecked")  // SessionBytes is the SslTlsInbound that plain bytes are, as Pekko HTTP takes them
    private static BidiFlow<TLSProtocol.SslTlsOutbound, ByteString, ByteString, TLSProtocol.SslTlsInbound, NotUsed> placebo() {
        return (BidiFlow<TLSProtocol.SslTlsOutbound, ByteString, ByteString, TLSProtocol.SslTlsInbound, NotUsed>)
                (BidiFlow<?, ?, ?, ?, ?>) TLSPlacebo.getInstance();
    }

    private static Optional<String> peerCommonName(HttpRequest request, Optional<ReloadableTls> tls) {
        if (tls.isEmpty() || !tls.get().current().certificateNameAsUsername()) return Optional.empty();
        return request.getAttribute(AttributeKeys.sslSession)
                .flatMap(session -> CertificateNames.peerCommonName(session.getSession()));
    }
}
