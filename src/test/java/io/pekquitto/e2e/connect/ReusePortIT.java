package io.pekquitto.e2e.connect;

import static io.pekquitto.e2e.RawClient.CONNACK;
import static io.pekquitto.e2e.RawClient.PUBACK;
import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;
import io.pekquitto.auth.tls.TestCertificates;
import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.BrokerExtension.Overrides;
import io.pekquitto.e2e.ConnectionLogLines;
import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import io.pekquitto.e2e.security.SecurityFiles;
import io.pekquitto.ops.Pekquitto;
import io.pekquitto.shards.settings.BrokerSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A listener with {@code reuse-port} on a broker of two shards: each shard accepts on a socket of its own, the
 * kernel spreads the clients over them, and they are served as on any listener: a message crosses from a
 * publisher on one shard to a subscriber on the other, {@code max-connections} counts across both sockets, and
 * every kind of listener (PROXY header, WebSocket, TLS) serves with it.
 */
@Timeout(60)
class ReusePortIT {
    private static final String REUSE_PORT = "shards = 2\nlisteners = [{host = \"127.0.0.1\", port = 0, reuse-port = true}]\n";
    /** Clients tried before both shards must have had one: the kernel's hash misses a shard 64 times in 2^63. */
    private static final int TRIES = 64;

    @RegisterExtension
    final BrokerExtension broker = BrokerExtension.inProcess(REUSE_PORT);
    @RegisterExtension
    final ConnectionLogLines log = new ConnectionLogLines();
    private final List<RawClient> clients = new ArrayList<>();

    @BeforeEach
    void epoll() {
        assumeTrue(Epoll.isAvailable(), "SO_REUSEPORT needs the epoll transport");
    }

    @AfterEach
    void closeClients() throws IOException {
        for (var client : clients) client.close();
    }

    /** A new client, connected, and the shard that serves it: the one whose count went up. */
    private int connectAndFindShard(String clientId) throws IOException {
        var counts = broker.pekquitto().counts();
        int before0 = counts.connections().get(0);
        int before1 = counts.connections().get(1);
        clients.add(broker.raw(Connect.of(V5, clientId)));
        return Eventually.await(Duration.ofSeconds(5), "the new client counted on a shard",
                () -> counts.connections().get(0) > before0 ? 0 : counts.connections().get(1) > before1 ? 1 : -1,
                shard -> shard >= 0);
    }

    @Test
    @DisplayName("clients land on both shards, and a message crosses from one to the other")
    void clientsReachBothShardsAndAMessageCrossesBetweenThem() throws Exception {
        var topic = Names.topic("across");
        var subscriber = clients.size();
        int subscriberShard = connectAndFindShard(Names.clientId("sub"));
        clients.get(subscriber).send(RawClient.subscribe(V5, 1, new Filter(topic, 1)));
        clients.get(subscriber).expect(SUBACK);

        int publisherShard = subscriberShard;
        for (int i = 0; i < TRIES && publisherShard == subscriberShard; i++) publisherShard = connectAndFindShard(Names.clientId("pub"));
        assertTrue(publisherShard != subscriberShard, "the kernel spread the clients over both shards' sockets");

        var publisher = clients.get(clients.size() - 1);
        publisher.send(RawClient.publish(V5, topic, 1, 7, "from the other shard"));
        publisher.expect(PUBACK);
        assertEquals("from the other shard", clients.get(subscriber).expect(PUBLISH).publish(V5).payloadText());
    }

    @Test
    @Overrides("listeners = [{host = \"127.0.0.1\", port = 0, reuse-port = true, max-connections = 2}]")
    @DisplayName("max-connections counts the connections of both shards' sockets: one more is refused")
    void maxConnectionsCountsAcrossTheShardsSockets() throws Exception {
        clients.add(broker.raw(Connect.of(V5, Names.clientId("first"))));
        clients.add(broker.raw(Connect.of(V5, Names.clientId("second"))));
        try (var refused = broker.raw()) {
            try {
                refused.send(Connect.of(V5, Names.clientId("over")).bytes());
            } catch (IOException closedAlready) {
                // the broker may have closed it before the CONNECT went out
            }
            refused.expectClosed(RawClient.TIMEOUT);
        }
        var figures = broker.pekquitto().figures().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(1, figures.connectionsRefused(), "counted for $SYS and the metrics");
    }

    @Test
    @DisplayName("why it is off by default: a second broker with reuse-port binds the same port; one without is refused")
    void aSecondBrokerWithReusePortBindsTheSamePortTooAndOneWithoutCannot() {
        var second = BrokerSettings.parse("shards = 1\nlisteners = [{host = \"127.0.0.1\", port = " + broker.port() + ", reuse-port = true}]");
        try (var sharing = Pekquitto.start(second)) {
            assertEquals(broker.port(), sharing.port(), "it would take some of the first one's new connections");
        }
        var alone = BrokerSettings.parse("shards = 1\nlisteners = [{host = \"127.0.0.1\", port = " + broker.port() + "}]");
        var refused = assertThrows(IllegalStateException.class, () -> Pekquitto.start(alone).close());
        assertTrue(refused.getMessage().contains("in use"), refused.getMessage());
    }

    @Test
    @DisplayName("every kind of listener with reuse-port: PROXY header (in the connection log), WebSocket, TLS")
    void everyKindOfListenerServesWithReusePort() throws Exception {
        var certificates = TestCertificates.create(Files.createTempDirectory("pekquitto-reuse-port"));
        var settings = BrokerSettings.parse("""
                shards = 2
                listeners = [
                  { host = "127.0.0.1", port = 0, reuse-port = true, proxy-protocol = true }
                  { host = "127.0.0.1", port = 0, reuse-port = true, protocol = websocket }
                  { host = "127.0.0.1", port = 0, reuse-port = true, tls { cert-file = %s, key-file = %s } }
                ]
                """.formatted(SecurityFiles.quoted(certificates.server().certificateFile()),
                SecurityFiles.quoted(certificates.server().keyFile())));
        try (var kinds = Pekquitto.start(settings)) {
            assertServedOnEveryKind(kinds.boundAddresses(), certificates);
        }
    }

    private void assertServedOnEveryKind(List<InetSocketAddress> addresses, TestCertificates certificates) throws Exception {
        var proxied = Names.clientId("proxied");
        try (var client = RawClient.open(addresses.get(0).getPort())) {
            var header = "PROXY TCP4 192.0.2.7 198.51.100.1 51234 1883\r\n".getBytes(StandardCharsets.US_ASCII);
            client.send(header, Connect.of(V5, proxied).bytes());
            assertEquals(0, client.expect(CONNACK).connAckReason());
            assertEquals("New client connected from 192.0.2.7:51234 as " + proxied + " (p5, c1, k60).",
                    log.awaitLine("the connect line", text -> text.startsWith("New client connected") && text.contains(proxied)));
        }

        var connAck = new CompletableFuture<ByteBuffer>();
        var webSocket = HttpClient.newHttpClient().newWebSocketBuilder().subprotocols("mqtt")
                .buildAsync(URI.create("ws://127.0.0.1:" + addresses.get(1).getPort() + "/mqtt"), new WebSocket.Listener() {
                    @Override
                    public CompletionStage<?> onBinary(WebSocket socket, ByteBuffer data, boolean last) {
                        connAck.complete(data);
                        return null;
                    }
                }).get(10, TimeUnit.SECONDS);
        webSocket.sendBinary(ByteBuffer.wrap(Connect.of(V5, Names.clientId("ws")).bytes()), true);
        assertEquals(0x20, connAck.get(10, TimeUnit.SECONDS).get(0) & 0xff, "CONNACK over the WebSocket");
        webSocket.abort();

        var tls = certificates.clientContext(Optional.empty()).getSocketFactory()
                .createSocket("127.0.0.1", addresses.get(2).getPort());
        try (var client = RawClient.over(tls)) {
            client.send(Connect.of(V5, Names.clientId("tls")).bytes());
            assertEquals(0, client.expect(CONNACK).connAckReason());
        }
    }
}
