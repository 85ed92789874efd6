package io.pekquitto.shards.websocket;

import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.ws.BinaryMessage;
import org.apache.pekko.http.javadsl.model.ws.Message;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.OverflowStrategy;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.SourceQueueWithComplete;
import org.apache.pekko.util.ByteString;

/**
 * One WebSocket connection's two directions as the broker holds them: a queue it pulls the client's
 * bytes from, one chunk at a time, and a queue it offers bytes to, one write at a time. Pekko HTTP runs
 * the stream between them and the socket; a {@link WebSocketTransport} drives both from the shard's
 * thread. MQTT over WebSockets carries MQTT in binary messages whose boundaries mean nothing (MQTT 5
 * 6.0): a message's bytes are a chunk of the MQTT byte stream, however the client framed them.
 */
public final class WebSocketStream {
    private final SinkQueueWithCancel<ByteString> incoming;
    private final SourceQueueWithComplete<ByteString> outgoing;

    private final AtomicBoolean textSeen;

    WebSocketStream(SinkQueueWithCancel<ByteString> incoming, SourceQueueWithComplete<ByteString> outgoing,
                    AtomicBoolean textSeen) {
        this.incoming = incoming;
        this.outgoing = outgoing;
        this.textSeen = textSeen;
    }

    /**
     * The flow Pekko HTTP runs for an upgraded request: {@code accepted} gets the stream once it runs.
     * Both directions end together: a client that closes ends the broker's side, and the other way round.
     */
    static Flow<Message, Message, NotUsed> flow(Consumer<WebSocketStream> accepted) {
        var textSeen = new AtomicBoolean();
        var bytesIn = Flow.<Message>create()
                // A text message is a protocol error [MQTT-6.0.0-1]: the client's side ends there, which closes
                // the connection (a failed stream would do it too, but Pekko HTTP logs that at ERROR).
                .takeWhile(message -> {
                    if (message.isText()) textSeen.set(true);
                    return !message.isText();
                })
                .flatMapConcat(message -> message.asBinaryMessage().getStreamedData())
                // One chunk waits for the connection's next read: a busy connection stops reading the socket.
                .toMat(Sink.<ByteString>queue().withAttributes(Attributes.inputBuffer(1, 1)), Keep.right());
        var bytesOut = Source.<ByteString>queue(1, OverflowStrategy.backpressure(), 1)
                .map(bytes -> (Message) BinaryMessage.create(bytes));
        return Flow.fromSinkAndSourceCoupledMat(bytesIn, bytesOut, Keep.both())
                .mapMaterializedValue((Pair<SinkQueueWithCancel<ByteString>, SourceQueueWithComplete<ByteString>> queues) -> {
                    accepted.accept(new WebSocketStream(queues.first(), queues.second(), textSeen));
                    return NotUsed.getInstance();
                });
    }

    /** The client's next chunk; empty when it has closed. At most one pull at a time. */
    CompletionStage<Optional<ByteString>> pull() {
        return incoming.pull();
    }

    /** Hands bytes to the socket's side; completes when the stream has taken them. At most one offer at a time. */
    CompletionStage<?> offer(ByteString bytes) {
        return outgoing.offer(bytes);
    }

    /** Ends the broker's side after what was offered: the client gets a close frame. */
    void complete() {
        outgoing.complete();
    }

    /** Ends both sides now, without waiting for what was offered. */
    public void cancel() {
        incoming.cancel();
        outgoing.complete();
    }

    /** Why the connection ended, once it has, when the broker did not end it. */
    String endedBecause(Throwable failure) {
        if (textSeen.get()) return "a text WebSocket message (MQTT is carried in binary messages only)";
        if (failure == null) return "closed";
        var cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    }

    /** Completes when the connection has ended, whichever side ended it; fails with the reason if it failed. */
    CompletionStage<Done> ended() {
        return outgoing.watchCompletion();
    }
}
