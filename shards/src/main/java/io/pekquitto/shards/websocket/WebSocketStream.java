package io.pekquitto.shards.websocket;

import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.ws.BinaryMessage;
import org.apache.pekko.http.javadsl.model.ws.Message;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.BoundedSourceQueue;
import org.apache.pekko.stream.QueueOfferResult;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.SinkQueueWithCancel;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * One WebSocket connection's two directions as the broker holds them: a queue it pulls the client's
 * bytes from, one chunk at a time, and a bounded queue it offers its writes to without waiting. Pekko HTTP runs
 * the stream between them and the socket; a {@link WebSocketTransport} drives both from the shard's
 * thread. MQTT over WebSockets carries MQTT in binary messages whose boundaries mean nothing (MQTT 5
 * 6.0): a message's bytes are a chunk of the MQTT byte stream, however the client framed them.
 */
public final class WebSocketStream {
    /** Writes the stream may hold before the socket takes them: a pipeline, not a buffer for a slow reader. */
    static final int OUTGOING_WRITES = 16;
    /**
     * Where the stream's answers run: on the thread that completes them, the stream's own. Not through
     * {@code whenComplete}: Scala's {@code CompletionStage} for Pekko's futures makes every callback async on
     * the common pool, and on a machine of two cores that pool is a new thread per task (measured: a thread
     * started for every chunk read, and 600 us more per QoS 1 round trip).
     */
    static final Executor ON_THE_STREAMS_THREAD = Runnable::run;

    private final SinkQueueWithCancel<ByteString> incoming;
    private final BoundedSourceQueue<ByteString> outgoing;
    private final CompletionStage<Done> ended;
    /** Bytes offered and not yet taken from the queue by the stream. */
    private final AtomicLong queuedBytes;
    /** Set when an offer found the queue full: the stream calls {@link #onRoom} when it takes the next write. */
    private final AtomicBoolean wantsRoom;
    private volatile Runnable onRoom = () -> {};
    /** Set by the stream when the client sent a text message, which ended the connection. */
    private final AtomicBoolean textSeen;

    WebSocketStream(SinkQueueWithCancel<ByteString> incoming, BoundedSourceQueue<ByteString> outgoing,
                    CompletionStage<Done> ended, AtomicLong queuedBytes, AtomicBoolean wantsRoom, AtomicBoolean textSeen) {
        this.incoming = incoming;
        this.outgoing = outgoing;
        this.ended = ended;
        this.queuedBytes = queuedBytes;
        this.wantsRoom = wantsRoom;
        this.textSeen = textSeen;
    }

    /**
     * The outgoing side: a bounded queue the transport offers to without waiting, and the bytes it holds
     * counted, so that the transport knows how much is still to be written; when an offer found it full,
     * the stream calls back as soon as it takes a write.
     */
    static Source<Message, Pair<BoundedSourceQueue<ByteString>, CompletionStage<Done>>> outgoing(
            AtomicLong queuedBytes, AtomicBoolean wantsRoom, Supplier<Runnable> onRoom) {
        return Source.<ByteString>queue(OUTGOING_WRITES)
                .map(bytes -> {
                    queuedBytes.addAndGet(-bytes.size());
                    if (wantsRoom.get() && wantsRoom.compareAndSet(true, false)) onRoom.get().run();
                    return (Message) BinaryMessage.create(bytes);
                })
                .watchTermination(Keep.both());
    }

    /**
     * The flow Pekko HTTP runs for an upgraded request: {@code accepted} gets the stream once it runs.
     * Both directions end together: a client that closes ends the broker's side, and the other way round.
     */
    static Flow<Message, Message, NotUsed> flow(Consumer<WebSocketStream> accepted) {
        var textSeen = new AtomicBoolean();
        var queuedBytes = new AtomicLong();
        var wantsRoom = new AtomicBoolean();
        var stream = new AtomicReference<WebSocketStream>();
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
        var bytesOut = outgoing(queuedBytes, wantsRoom, () -> stream.get().roomCallback());
        return Flow.fromSinkAndSourceCoupledMat(bytesIn, bytesOut, Keep.both())
                .mapMaterializedValue(queues -> {
                    stream.set(new WebSocketStream(queues.first(), queues.second().first(), queues.second().second(),
                            queuedBytes, wantsRoom, textSeen));
                    accepted.accept(stream.get());
                    return NotUsed.getInstance();
                });
    }

    /**
     * Asks for the client's next chunk: {@code then} gets it, or empty when the client has closed, on the
     * stream's thread. At most one pull at a time.
     */
    void pull(BiConsumer<Optional<ByteString>, Throwable> then) {
        incoming.pull().whenCompleteAsync(then, ON_THE_STREAMS_THREAD);
    }

    /** Who to tell when an offer that found the queue full may be tried again (on the stream's thread). */
    void onRoom(Runnable onRoom) {
        this.onRoom = onRoom;
    }

    /**
     * Hands bytes to the socket's side without waiting: true if the queue took them; false if it is full
     * (the {@link #onRoom} callback then comes once it has room) or closed (the end comes to {@link #ended}).
     */
    boolean offer(ByteString bytes) {
        queuedBytes.addAndGet(bytes.size());
        if (outgoing.offer(bytes) == QueueOfferResult.enqueued()) return true;
        queuedBytes.addAndGet(-bytes.size());
        wantsRoom.set(true);
        // The stream may have emptied the queue between the offer and the flag: try once more.
        if (outgoing.offer(bytes) != QueueOfferResult.enqueued()) return false;
        queuedBytes.addAndGet(bytes.size());
        wantsRoom.compareAndSet(true, false);  // if the stream took the flag already, one extra call back: harmless
        return true;
    }

    /** The call back {@link #onRoom} registered: the stream runs it when a full queue has room again. */
    Runnable roomCallback() {
        return onRoom;
    }

    /** Bytes offered that the stream has not yet taken. */
    long queuedBytes() {
        return queuedBytes.get();
    }

    /** Ends the broker's side after what was offered: the client gets a close frame. */
    void complete() {
        completeOutgoing();
    }

    /** Ends both sides now, without waiting for what was offered. */
    public void cancel() {
        incoming.cancel();
        completeOutgoing();
    }

    private void completeOutgoing() {
        try {
            outgoing.complete();
        } catch (IllegalStateException alreadyCompleted) {
            // The client's close ended both sides first; the transport hears of that end after this.
        }
    }

    /** Why the connection ended, once it has, when the broker did not end it. */
    String endedBecause(Throwable failure) {
        if (textSeen.get()) return "a text WebSocket message (MQTT is carried in binary messages only)";
        if (failure == null) return "closed";
        var cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    }

    /** {@code then} runs once the connection has ended, whichever side ended it, with the failure if it failed. */
    void whenEnded(BiConsumer<Done, Throwable> then) {
        ended.whenCompleteAsync(then, ON_THE_STREAMS_THREAD);
    }
}
