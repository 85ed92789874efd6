package io.pekquitto.shards.transport;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.pekquitto.auth.tls.TestCertificates;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.TestConnections;
import io.pekquitto.shards.connection.Transport;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.settings.ListenerSettings;
import io.pekquitto.shards.settings.TlsSettings;
import io.pekquitto.shards.tcp.ListenerTls;
import io.pekquitto.shards.tcp.ReloadableTls;
import io.pekquitto.shards.tcp.TlsFiles;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * TLS on a shard's sockets over real loopback handshakes, with each provider a listener may ask for: the
 * engine {@link ListenerTls} makes, bytes both ways, client certificates (verified, refused, their CN as the
 * username), and a reload that gives new sockets the new certificate while the sockets before it go on.
 */
class ShardChannelsTlsTest {
    private static final ActorTestKit testKit = ActorTestKit.create();
    /** The largest WebSocket frame, which these TCP listeners never read. */
    private static final int WEBSOCKET_FRAME = 1024 * 1024;
    private static final ByteString CONNECT_START = ByteString.fromArray(new byte[] {0x10, 0x0c, 0x00, 0x04, 'M', 'Q', 'T', 'T'});

    @TempDir
    static Path directory;
    private static TestCertificates certificates;
    /** Another CA and server certificate, as a reload brings them. */
    private static TestCertificates renewed;

    private final MultiThreadIoEventLoopGroup shardLoop = new MultiThreadIoEventLoopGroup(1, SocketKind.chosen().handlerFactory());
    /** Where the handshakes' delegated tasks run, as Pekko's default dispatcher stands for in a shard: counted. */
    private final ExecutorService handshakeSteps = Executors.newSingleThreadExecutor();
    private final AtomicInteger delegated = new AtomicInteger();
    private final ShardChannels channels = new ShardChannels(task -> {
        delegated.incrementAndGet();
        handshakeSteps.execute(task);
    }, WEBSOCKET_FRAME);
    private final LinkedBlockingQueue<AcceptedSocket> accepted = new LinkedBlockingQueue<>();
    private final List<Socket> clients = new ArrayList<>();
    private final Listener listener = Listener.of(0, new ListenerSettings("127.0.0.1", 0, Optional.empty(), Optional.empty(),
            false, -1, EnumSet.allOf(ProtocolVersion.class)));
    private Acceptor acceptor;
    private InetSocketAddress address;

    /** One accepted socket: its client's end, and the connection's probe and transport. */
    private record Served(SSLSocket client, TestProbe<Connection.Command> connection, Transport transport) {}

    @BeforeAll
    static void makeCertificates() throws IOException {
        certificates = TestCertificates.create(Files.createDirectories(directory.resolve("first")));
        renewed = TestCertificates.create(Files.createDirectories(directory.resolve("renewed")));
    }

    @BeforeEach
    void listen() throws Exception {
        acceptor = Acceptor.listen(new InetSocketAddress("127.0.0.1", 0), "test-acceptor", accepted::add);
        address = acceptor.bound().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @AfterEach
    void close() throws IOException {
        for (var client : clients) client.close();
        acceptor.close();
        shardLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        handshakeSteps.shutdownNow();
    }

    @AfterAll
    static void stop() {
        testKit.shutdownTestKit();
    }

    private static ListenerTls load(TlsSettings.Provider provider, TestCertificates files, boolean mutual) {
        assumeTrue(provider != TlsSettings.Provider.OPENSSL || OpenSsl.isAvailable(), "OpenSSL does not load here");
        return TlsFiles.load(new TlsSettings(files.server().certificateFile(), files.server().keyFile(), Optional.empty(),
                mutual ? Optional.of(files.caFile()) : Optional.empty(), mutual, mutual, provider));
    }

    /**
     * A client connects with {@code client}'s context, the shard adopts its socket with {@code tls}, the
     * connection asks to read (as it does from the start), and the client's handshake runs.
     */
    private Served connect(ListenerTls tls, SSLContext client) throws Exception {
        assertTrue(listener.connections().tryOpen());
        var plain = new Socket(address.getAddress(), address.getPort());
        plain.setSoTimeout(5_000);
        var socket = (SSLSocket) client.getSocketFactory().createSocket(plain, "127.0.0.1", address.getPort(), true);
        clients.add(socket);
        var connection = testKit.<Connection.Command>createTestProbe();
        var acceptedSocket = accepted.poll(5, TimeUnit.SECONDS);
        var transport = shardLoop.submit(() -> {
            channels.adopt(acceptedSocket, TestConnections.servedBy(connection.getRef()), Optional.of(tls), listener);
            var ready = assertInstanceOf(Connection.TransportReady.class, connection.receiveMessage()).transport();
            ready.readMore();
            return ready;
        }).get(5, TimeUnit.SECONDS);
        try {
            socket.startHandshake();
        } catch (SSLException e) {
            // Refused by the server: the connection hears why, as the tests check.
        }
        return new Served(socket, connection, transport);
    }

    /** The client's bytes reach the connection, and the connection's reach the client. */
    private void assertBytesCrossBothWays(Served served) throws Exception {
        served.client().getOutputStream().write(CONNECT_START.toArray());
        served.client().getOutputStream().flush();
        assertEquals(CONNECT_START, assertInstanceOf(Connection.BytesReceived.class, served.connection().receiveMessage()).bytes());
        shardLoop.submit(() -> served.transport().write(ByteString.fromString("CONNACK"))).get(5, TimeUnit.SECONDS);
        assertEquals("CONNACK", new String(served.client().getInputStream().readNBytes(7), US_ASCII));
    }

    private Optional<String> peerCommonName(Served served) throws Exception {
        return shardLoop.submit(() -> served.transport().peerCommonName()).get(5, TimeUnit.SECONDS);
    }

    @Test
    void openSslLoadsOnTheLinuxMachinesItIsPackagedFor() {
        var arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).startsWith("linux")
                && List.of("amd64", "x86_64", "aarch64").contains(arch), "netty-tcnative is packaged for Linux x86-64 and ARM64 only");
        assertTrue(OpenSsl.isAvailable(), () -> "OpenSSL does not load: " + OpenSsl.unavailabilityCause());
    }

    @ParameterizedTest
    @EnumSource(names = {"OPENSSL", "JDK"})
    void eachSocketGetsAnEngineOfTheChosenProvider(TlsSettings.Provider provider) {
        var handler = load(provider, certificates, false).newHandler(ByteBufAllocator.DEFAULT, address, Runnable::run);
        assertEquals(provider == TlsSettings.Provider.OPENSSL, handler.engine() instanceof ReferenceCountedOpenSslEngine,
                handler.engine().getClass().getName());
        assertEquals(List.of("TLSv1.3", "TLSv1.2"), List.of(handler.engine().getEnabledProtocols()).stream()
                .filter(p -> p.startsWith("TLS")).sorted(Comparator.reverseOrder()).toList());
    }

    @ParameterizedTest
    @EnumSource(names = {"OPENSSL", "JDK"})
    void bytesCrossTheHandshakeBothWaysItsSlowStepsOffTheShardsThread(TlsSettings.Provider provider) throws Exception {
        var served = connect(load(provider, certificates, false), certificates.clientContext(Optional.empty()));
        assertBytesCrossBothWays(served);
        assertEquals(Optional.empty(), peerCommonName(served));
        assertTrue(delegated.get() > 0, "no step of the handshake was handed to the executor");
    }

    @ParameterizedTest
    @EnumSource(names = {"OPENSSL", "JDK"})
    void aClientCertificateOfTheCaIsVerifiedAndItsCommonNameIsTheUsername(TlsSettings.Provider provider) throws Exception {
        var served = connect(load(provider, certificates, true), certificates.clientContext(Optional.of(certificates.client("device, 7"))));
        assertBytesCrossBothWays(served);
        assertEquals(Optional.of("device, 7"), peerCommonName(served));
    }

    @ParameterizedTest
    @EnumSource(names = {"OPENSSL", "JDK"})
    void aRequiredClientCertificateThatIsMissingOrFromAnotherCaEndsTheConnection(TlsSettings.Provider provider) throws Exception {
        var tls = load(provider, certificates, true);
        for (var certificate : List.of(Optional.<TestCertificates.Issued>empty(), Optional.of(certificates.untrustedClient("device-1")))) {
            var served = connect(tls, certificates.clientContext(certificate));
            var closed = served.connection().expectMessageClass(Connection.TransportClosed.class);
            assertTrue(closed.cause().startsWith("TLS: "), closed.cause());
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"OPENSSL", "JDK"})
    void aReloadGivesNewSocketsTheNewCertificateWhileTheSocketsBeforeItGoOn(TlsSettings.Provider provider) throws Exception {
        var reloadable = new ReloadableTls(load(provider, certificates, false));
        var before = connect(reloadable.current(), certificates.clientContext(Optional.empty()));
        reloadable.replace(load(provider, renewed, false));
        // What a collection would free of the old context once nothing uses it: not while its socket is open.
        System.gc();

        var refused = connect(reloadable.current(), certificates.clientContext(Optional.empty()));
        assertTrue(refused.connection().expectMessageClass(Connection.TransportClosed.class).cause().startsWith("TLS: "));
        assertBytesCrossBothWays(connect(reloadable.current(), renewed.clientContext(Optional.empty())));
        assertBytesCrossBothWays(before);
    }
}
