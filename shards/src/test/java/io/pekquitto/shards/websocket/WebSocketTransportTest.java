package io.pekquitto.shards.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.TestConnections;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.http.javadsl.model.ws.BinaryMessage;
import org.apache.pekko.http.javadsl.model.ws.Message;
import org.apache.pekko.http.javadsl.model.ws.TextMessage;
import org.apache.pekko.stream.Attributes;
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

    private SourceQueueWithComplete<Message> clientSends;
    private SinkQueueWithCancel<ByteString> clientReceives;
    private TestProbe<ShardWebSockets.Event> events;
    private TestProbe<Connection.Command> connection;
    private WebSocketStream stream;
    private WebSocketTransport transport;

    @BeforeEach
    void create() {
        var materializer = Materializer.matFromSystem(testKit.system());
        var streamAccepted = new java.util.concurrent.CompletableFuture<WebSocketStream>();
        var client = Source.<Message>queue(8, OverflowStrategy.backpressure(), 1)
                .via(WebSocketStream.flow(streamAccepted::complete))
                .map(message -> message.asBinaryMessage().getStrictData())
                // One message at a time towards the client: the queue fills as a slow socket's would.
                .toMat(Sink.<ByteString>queue().withAttributes(Attributes.inputBuffer(1, 1)), Keep.both())
                .run(materializer);
        clientSends = client.first();
        clientReceives = client.second();
        stream = streamAccepted.join();
        events = testKit.createTestProbe();
        connection = testKit.createTestProbe();
        transport = new WebSocketTransport(stream, events.getRef(), TestConnections.servedBy(connection.getRef()),
                new InetSocketAddress("127.0.0.1", 50_000), Optional.empty());
    }

    /** The client sends a binary message. */
    private void clientSends(String bytes) throws Exception {
        clientSends.offer(BinaryMessage.create(ByteString.fromString(bytes))).toCompletableFuture().get(5, TimeUnit.SECONDS);
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
    void writesGoOutAtOnceAndWaitConcatenatedWhileTheQueueIsFull() throws Exception {
        int writes = 3 * WebSocketStream.OUTGOING_WRITES;
        for (int i = 0; i < writes; i++) transport.write(ByteString.fromString("x"));
        // The client reads nothing yet: a write or two may be in the stream past the queue, the rest is counted.
        assertTrue(transport.bufferedBytes() >= writes - 2, () -> "buffered " + transport.bufferedBytes());
        int received = 0;
        int messages = 0;
        while (received < writes) {
            var next = clientReceives.pull().toCompletableFuture();
            ByteString message;
            try {
                message = next.get(200, TimeUnit.MILLISECONDS).orElseThrow();
            } catch (TimeoutException waiting) {
                answer();  // the queue had room again: the transport offers what waited, as one message
                message = next.get(5, TimeUnit.SECONDS).orElseThrow();
            }
            received += message.size();
            messages++;
        }
        assertEquals(writes, received);
        assertTrue(messages < writes, "what waited for room went out as one message: " + messages + " messages");
        assertEquals(0, transport.bufferedBytes());
    }

    @Test
    void theConnectionHearsOnceTheStreamTookWhatWasWritten() throws Exception {
        transport.write(ByteString.fromString("a"));
        transport.tellWhenTaken();
        answer();  // the stream took every write: its call back, through the shard
        assertEquals(Connection.WritesTaken.INSTANCE, connection.receiveMessage());
        assertEquals(ByteString.fromString("a"), clientGets().orElseThrow());
    }

    @Test
    void readsArePulledOneChunkAtATimeAndReachTheConnection() throws Exception {
        transport.readMore();
        transport.readMore();  // one pull is out: a second would fail the queue
        clientSends("x");
        clientSends("y");
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
        assertEquals(Optional.of(ByteString.fromString("more")), clientGets());
        assertEquals(Optional.empty(), clientGets(), "the broker's side has ended");
        var ended = new java.util.concurrent.CompletableFuture<Done>();
        stream.whenEnded((done, failure) -> ended.complete(done));
        ended.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aMessageInPartsIsReadAPartAtATimeThenTheNextMessage() throws Exception {
        var parts = Source.from(java.util.List.of(ByteString.fromString("a"), ByteString.fromString("b")));
        clientSends.offer(BinaryMessage.create(parts)).toCompletableFuture().get(5, TimeUnit.SECONDS);
        clientSends("c");
        for (var expected : java.util.List.of("a", "b", "c")) {
            transport.readMore();
            answer();
            assertEquals(ByteString.fromString(expected),
                    assertInstanceOf(Connection.BytesReceived.class, connection.receiveMessage()).bytes());
        }
    }

    @Test
    void aTextMessageEndsTheConnectionAndSaysWhy() throws Exception {
        transport.readMore();
        clientSends.offer(TextMessage.create("CONNECT")).toCompletableFuture().get(5, TimeUnit.SECONDS);
        var cause = new java.util.concurrent.CompletableFuture<String>();
        stream.whenEnded((done, failure) -> cause.complete(stream.endedBecause(failure)));
        assertTrue(cause.get(5, TimeUnit.SECONDS).startsWith("a text WebSocket message"), cause::join);
        assertEquals(Optional.empty(), clientGets(), "the broker's side has ended");
    }

    @Test
    void theStreamsAnswersRunOnItsOwnThread() throws Exception {
        var thread = new java.util.concurrent.CompletableFuture<String>();
        stream.pull((chunk, failure) -> thread.complete(Thread.currentThread().getName()));
        clientSends("x");
        // Not a thread of the common pool, nor (with one or two cores) a new thread for each answer.
        assertTrue(thread.get(5, TimeUnit.SECONDS).contains("dispatcher"), thread::join);
    }

    @Test
    void aCloseAfterTheClientEndedTheStreamFirstIsQuiet() throws Exception {
        // The client's close frame ends both sides; the transport hears of it a turn later.
        clientSends.complete();
        assertEquals(Optional.empty(), clientGets());
        transport.close();  // threw IllegalStateException on the shard's thread once, failing the connection actor
        transport.write(ByteString.fromString("late"));
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
