package io.pekquitto.shards.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.TestConnections;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.OverflowStrategy;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.SourceQueueWithComplete;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A WebSocket connection's transport over its two queues, the HTTP server left out: the client's side
 * is a queue the test offers to and one it pulls from, and the test hands the stream's answers to the
 * transport itself, as the shard's {@link ShardWebSockets} would.
 */
class WebSocketTransportTest {
    private static final ActorTestKit testKit = ActorTestKit.create();
    private static final Duration QUIET = Duration.ofMillis(50);

    private SourceQueueWithComplete<ByteString> clientSends;
    private SinkQueueWithCancel<ByteString> clientReceives;
    private TestProbe<ShardWebSockets.Event> events;
    private TestProbe<Connection.Command> connection;
    private WebSocketStream stream;
    private WebSocketTransport transport;

    @BeforeEach
    void create() {
        var materializer = Materializer.matFromSystem(testKit.system());
        var in = Source.<ByteString>queue(8, OverflowStrategy.backpressure(), 1)
                .toMat(Sink.queue(), Keep.both()).run(materializer);
        var out = Source.<ByteString>queue(1, OverflowStrategy.backpressure(), 1)
                .toMat(Sink.queue(), Keep.both()).run(materializer);
        clientSends = in.first();
        clientReceives = out.second();
        stream = new WebSocketStream(in.second(), out.first(), new AtomicBoolean());
        events = testKit.createTestProbe();
        connection = testKit.createTestProbe();
        transport = new WebSocketTransport(stream, events.getRef(), TestConnections.servedBy(connection.getRef()),
                new InetSocketAddress("127.0.0.1", 50_000), Optional.empty());
    }

    @AfterAll
    static void stop() {
        testKit.shutdownTestKit();
    }

    /** What the client gets next; empty once the broker's side has ended. */
    private Optional<ByteString> clientGets() throws Exception {
        return clientReceives.pull().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    /** Hands the stream's next answer to the transport, as the shard's handler does. */
    private void answer() {
        var event = events.receiveMessage();
        if (event instanceof ShardWebSockets.Written) transport.written();
        else if (event instanceof ShardWebSockets.Pulled pulled) transport.pulled(pulled.chunk());
        else throw new AssertionError("unexpected " + event);
    }

    @Test
    void oneWriteIsInFlightAndWhatComesMeanwhileGoesOutAsOneMessage() throws Exception {
        transport.write(ByteString.fromString("a"));
        transport.write(ByteString.fromString("b"));
        transport.write(ByteString.fromString("c"));
        assertEquals(3, transport.bufferedBytes(), "one in flight, two waiting");
        assertEquals(Optional.of(ByteString.fromString("a")), clientGets());
        answer();  // a taken: b and c go as one
        assertEquals(Optional.of(ByteString.fromString("bc")), clientGets());
        answer();
        assertEquals(0, transport.bufferedBytes());
    }

    @Test
    void readsArePulledOneChunkAtATimeAndReachTheConnection() throws Exception {
        transport.readMore();
        transport.readMore();  // one pull is out: a second would fail the queue
        clientSends.offer(ByteString.fromString("x")).toCompletableFuture().get(5, TimeUnit.SECONDS);
        clientSends.offer(ByteString.fromString("y")).toCompletableFuture().get(5, TimeUnit.SECONDS);
        answer();
        assertEquals(ByteString.fromString("x"), assertInstanceOf(Connection.BytesReceived.class, connection.receiveMessage()).bytes());
        events.expectNoMessage(QUIET);  // y waits for the connection's next read
        transport.readMore();
        answer();
        assertEquals(ByteString.fromString("y"), assertInstanceOf(Connection.BytesReceived.class, connection.receiveMessage()).bytes());
    }

    @Test
    void closeSendsWhatWasWrittenThenEndsTheBrokersSide() throws Exception {
        transport.write(ByteString.fromString("disconnect"));
        transport.write(ByteString.fromString("more"));
        transport.close();
        transport.write(ByteString.fromString("after close"));  // dropped: nothing is written after close
        assertEquals(Optional.of(ByteString.fromString("disconnect")), clientGets());
        answer();
        assertEquals(Optional.of(ByteString.fromString("more")), clientGets());
        answer();
        assertEquals(Optional.empty(), clientGets(), "the broker's side has ended");
        stream.ended().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @Test
    void theConnectionHearsOfTheEndOnceAndNothingIsWrittenAfterIt() {
        transport.ended("closed by the client");
        transport.ended("closed");
        assertEquals("closed by the client",
                assertInstanceOf(Connection.TransportClosed.class, connection.receiveMessage()).cause());
        connection.expectNoMessage(QUIET);
        transport.write(ByteString.fromString("late"));
        assertEquals(0, transport.bufferedBytes());
    }
}
