package io.pekquitto.shards.transport;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.Transport;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.settings.ListenerSettings;
import io.pekquitto.shards.settings.WebSocketSettings;
import io.pekquitto.shards.transport.websocket.MqttOverWebSocketFrames;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A WebSocket listener's sockets on a shard's loop, over real loopback connections as in
 * {@link ShardChannelsTest}: the HTTP answers before the upgrade, then MQTT bytes in binary frames however
 * the client frames them, as they arrive (not once a frame is whole), one chunk per read asked for, a
 * turn's writes in one frame, and the close.
 */
class WebSocketChannelsTest {
    private static final ActorTestKit testKit = ActorTestKit.create();
    private static final Duration QUIET = Duration.ofMillis(200);
    private static final int MAX_FRAME = 4096;
    private static final byte[] CONNECT_START = {0x10, 0x0c, 0x00, 0x04, 'M', 'Q', 'T', 'T'};

    @RegisterExtension
    final LoopbackShard shard = new LoopbackShard(MAX_FRAME);
    private final TestProbe<Connection.Command> connection = testKit.createTestProbe();
    private Socket client;
    private WebSocketPeer peer;
    private Transport transport;
    private Listener listener;

    @AfterAll
    static void stop() {
        testKit.shutdownTestKit();
    }

    /** A client connects to a WebSocket listener at /mqtt, and the shard adopts its socket; the connection asks for bytes. */
    private void connect(boolean proxyProtocol, boolean statusPage) throws Exception {
        listener = Listener.of(0, new ListenerSettings("127.0.0.1", 0, Optional.empty(),
                Optional.of(new WebSocketSettings("/mqtt", statusPage)), proxyProtocol, 1, EnumSet.allOf(ProtocolVersion.class)));
        client = shard.connect(listener, connection.getRef());
        peer = new WebSocketPeer(client);
        transport = assertInstanceOf(Connection.TransportReady.class, connection.receiveMessage()).transport();
        readMore();
    }

    private void upgraded() throws Exception {
        connect(false, true);
        assertTrue(assertStatus(101, peer.upgrade("/mqtt", "mqtt")).contains("sec-websocket-protocol: mqtt\r\n"));
    }

    private <T> T onLoop(Callable<T> task) throws Exception {
        return shard.onLoop(task);
    }

    private void readMore() throws Exception {
        onLoop(() -> {
            transport.readMore();
            return null;
        });
    }

    private ByteString received() {
        return assertInstanceOf(Connection.BytesReceived.class, connection.receiveMessage()).bytes();
    }

    @Test
    void theMqttPathUpgradesWithTheSubprotocolAskedFor() throws Exception {
        connect(false, true);
        var head = assertStatus(101, peer.upgrade("/mqtt?client=a", "chat, mqttv3.1, mqtt"));
        assertTrue(head.contains("sec-websocket-protocol: mqttv3.1\r\n"), head);
    }

    @Test
    void httpRequestsThatAreNoMqttUpgradeGet426Or400Or404AndTheConnectionHearsNothing() throws Exception {
        connect(false, false);
        var plain = peer.request("/mqtt", "");
        assertTrue(plain.toLowerCase().contains("upgrade: websocket\r\n"), plain);
        assertAnswer(426, plain);
        assertAnswer(400, peer.upgrade("/mqtt", "chat"));
        assertAnswer(400, peer.upgrade("/mqtt", null));
        assertTrue(assertAnswer(404, peer.upgrade("/other", "mqtt")).contains("MQTT over WebSockets is at /mqtt"));
        assertAnswer(404, peer.request("/", ""));  // no status page on this listener
        connection.expectNoMessage(QUIET);
    }

    @Test
    void whatIsNoHttpRequestGets400AndTheConnectionIsClosed() throws Exception {
        connect(false, true);
        client.getOutputStream().write("\u0010\u000c\u0000\u0004MQTT over no upgrade\r\n\r\n".getBytes(US_ASCII));
        assertAnswer(400, peer.head());
        assertEquals(-1, peer.input().read());
        assertInstanceOf(Connection.TransportClosed.class, connection.receiveMessage());
        assertEquals(0, listener.connections().open());
    }

    @Test
    void theStatusPageIsServedWithTheListenersPath() throws Exception {
        connect(false, true);
        var head = assertStatus(200, peer.request("/", ""));
        assertTrue(head.contains("content-type: text/html"), head);
        assertTrue(head.contains("cache-control: no-cache"), head);
        var page = new String(peer.body(contentLength(head)), UTF_8);
        assertTrue(page.contains("<meta name=\"mqtt-path\" content=\"/mqtt\">"), page);
        var script = peer.request("/status.js", "Connection: close\r\n");
        assertTrue(script.contains("content-type: application/javascript"), script);
        peer.body(contentLength(script));
        assertEquals(-1, peer.input().read(), "closed after the answer the client asked to be the last");
    }

    @Test
    void mqttBytesFramedAnyWayReachTheConnectionAsOneStreamAChunkPerRead() throws Exception {
        upgraded();
        peer.sendBinary(Arrays.copyOfRange(CONNECT_START, 0, 1));
        assertArrayEquals(new byte[] {0x10}, received().toArray());
        peer.sendBinary(Arrays.copyOfRange(CONNECT_START, 1, 8));
        connection.expectNoMessage(QUIET);  // nothing read until the connection asks
        readMore();
        assertArrayEquals(Arrays.copyOfRange(CONNECT_START, 1, 8), received().toArray());

        // A message in fragments: a binary frame, then continuation frames.
        peer.send(WebSocketPeer.BINARY, false, "ab".getBytes(US_ASCII));
        peer.send(WebSocketPeer.CONTINUATION, false, "cd".getBytes(US_ASCII));
        peer.send(WebSocketPeer.CONTINUATION, true, "ef".getBytes(US_ASCII));
        var fragments = new StringBuilder();
        while (fragments.length() < 6) {
            readMore();
            fragments.append(received().utf8String());
        }
        assertEquals("abcdef", fragments.toString());
    }

    @Test
    void aFramesBytesReachTheConnectionAsTheyArriveNotOnceTheFrameIsWhole() throws Exception {
        upgraded();
        peer.announce(MAX_FRAME);  // with a mask of zeros: the bytes go as they are
        var output = client.getOutputStream();
        output.write(CONNECT_START, 0, 2);
        output.flush();
        assertArrayEquals(Arrays.copyOfRange(CONNECT_START, 0, 2), received().toArray(), "before the frame's other 4,094 bytes");
        output.write(CONNECT_START, 2, 6);
        output.flush();
        readMore();
        assertArrayEquals(Arrays.copyOfRange(CONNECT_START, 2, 8), received().toArray());
    }

    @Test
    void aTurnsWritesGoOutAsOneBinaryFrameCountedAsBufferedUntilTheirFlush() throws Exception {
        upgraded();
        long buffered = onLoop(() -> {
            transport.write(ByteString.fromString("hello, "));
            transport.write(ByteString.fromString("world"));
            return transport.bufferedBytes();
        });
        assertEquals(12, buffered);
        var frame = peer.next();
        assertEquals(WebSocketPeer.BINARY, frame.opcode());
        assertEquals("hello, world", new String(frame.payload(), US_ASCII));
        assertEquals(0L, onLoop(transport::bufferedBytes));
    }

    @Test
    void theConnectionIsToldOnceTheSocketTookTheFrameWrittenBeforeItAsked() throws Exception {
        upgraded();
        // More than the client's socket and ours hold while it reads nothing: the frame waits in Netty's buffer.
        var big = ByteString.fromArray(new byte[8 * 1024 * 1024]);
        onLoop(() -> {
            transport.write(big);
            transport.tellWhenTaken();
            return null;
        });
        connection.expectNoMessage(QUIET);
        assertEquals(big.size(), peer.next().payload().length);
        assertEquals(Connection.WritesTaken.INSTANCE, connection.receiveMessage(), "told once it was taken");
    }

    @Test
    void aTextFrameClosesWithANormalCloseFrameAndSaysWhy() throws Exception {
        upgraded();
        peer.send(WebSocketPeer.TEXT, true, "not MQTT".getBytes(UTF_8));
        var close = peer.next();
        assertEquals(WebSocketPeer.CLOSE, close.opcode());
        assertEquals(1000, close.closeCode());
        peer.send(WebSocketPeer.CLOSE, true, close.payload());
        var closed = assertInstanceOf(Connection.TransportClosed.class, connection.receiveMessage());
        assertEquals(MqttOverWebSocketFrames.TEXT_REFUSED, closed.cause());
        assertEquals(0, listener.connections().open(), "its place is given back");
    }

    @Test
    void aCloseSendsWhatWasWrittenThenACloseFrameAndTheClientsAnswerEndsIt() throws Exception {
        upgraded();
        onLoop(() -> {
            transport.write(ByteString.fromString("last"));
            transport.close();
            transport.write(ByteString.fromString("never"));
            return null;
        });
        assertEquals("last", new String(peer.next().payload(), US_ASCII));
        var close = peer.next();
        assertEquals(1000, close.closeCode());
        assertEquals(-1, peer.input().read(), "our side of the stream ended");
        peer.send(WebSocketPeer.CLOSE, true, close.payload());
        assertEquals("closed", assertInstanceOf(Connection.TransportClosed.class, connection.receiveMessage()).cause());
        assertEquals(0, listener.connections().open());
    }

    @Test
    void theClientsCloseFrameIsAnsweredAndEndsTheConnection() throws Exception {
        upgraded();
        peer.send(WebSocketPeer.CLOSE, true, new byte[] {0x03, (byte) 0xE8});
        assertEquals(WebSocketPeer.CLOSE, peer.next().opcode());
        assertEquals("closed by the client", assertInstanceOf(Connection.TransportClosed.class, connection.receiveMessage()).cause());
        assertEquals(0, listener.connections().open());
    }

    @Test
    void aFrameLargerThanTheMaximumPacketSizeIsRefusedAtItsHeader() throws Exception {
        upgraded();
        peer.announce(MAX_FRAME + 1);
        var close = peer.next();
        assertEquals(1009, close.closeCode(), "message too big");
        var closed = assertInstanceOf(Connection.TransportClosed.class, connection.receiveMessage());
        assertTrue(closed.cause().startsWith("WebSocket: "), closed.cause());
        assertEquals(0, listener.connections().open());
    }

    @Test
    void theProxyHeaderBeforeTheUpgradeNamesTheClient() throws Exception {
        connect(true, true);
        client.getOutputStream().write("PROXY TCP4 192.0.2.7 198.51.100.1 51234 80\r\n".getBytes(US_ASCII));
        assertStatus(101, peer.upgrade("/mqtt", "mqtt"));
        peer.sendBinary(CONNECT_START);
        assertArrayEquals(CONNECT_START, received().toArray());
        assertEquals(new InetSocketAddress("192.0.2.7", 51234), onLoop(transport::remoteAddress));
    }

    @Test
    void aConnectionCutBeforeItsUpgradeEndsItsConnectionAndGivesItsPlaceBack() throws Exception {
        connect(false, true);
        onLoop(() -> {
            transport.close();  // the connect timeout, say: no close frame before an upgrade
            return null;
        });
        assertEquals(-1, peer.input().read());
        client.close();
        assertEquals("closed", assertInstanceOf(Connection.TransportClosed.class, connection.receiveMessage()).cause());
        assertEquals(0, listener.connections().open());
    }

    private static String assertStatus(int status, String head) {
        assertTrue(head.startsWith("HTTP/1.1 " + status + " "), head);
        return head;
    }

    /** Asserts the answer's status, and reads its body. */
    private String assertAnswer(int status, String head) throws IOException {
        return new String(peer.body(contentLength(assertStatus(status, head))), UTF_8);
    }

    private static int contentLength(String head) {
        for (var line : head.split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) return Integer.parseInt(line.substring(15).trim());
        }
        throw new AssertionError("no content-length in " + head);
    }
}
