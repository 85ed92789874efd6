package io.pekquitto.shards.websocket;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.pekko.Done;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.ws.Message;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.util.ByteString;

/**
 * One WebSocket connection's two directions as the broker holds them: it asks for the client's bytes one
 * chunk at a time, and offers its writes to a bounded queue without waiting. Pekko HTTP runs the stream
 * between them and the socket, through a {@link WebSocketStage}; a {@link WebSocketTransport} drives this
 * from the shard's thread. MQTT over WebSockets carries MQTT in binary messages whose boundaries mean
 * nothing (MQTT 5 6.0): a message's bytes are a chunk of the MQTT byte stream, however the client framed them.
 */
public final class WebSocketStream {
    /** Writes the stream may hold before the socket takes them: a pipeline, not a buffer for a slow reader. */
    static final int OUTGOING_WRITES = 16;

    private final Consumer<BiConsumer<Optional<ByteString>, Throwable>> reads;
    private final Consumer<ByteString> writes;
    /** true: end both sides now; false: end the broker's side after what was offered. */
    private final Consumer<Boolean> close;
    private final CompletableFuture<Done> ended = new CompletableFuture<>();
    /** Writes offered and not yet taken by the stream, and their bytes. */
    private final AtomicInteger queuedWrites = new AtomicInteger();
    private final AtomicLong queuedBytes = new AtomicLong();
    /** Set when an offer found the queue full: the stream calls {@link #onRoom} when it takes the next write. */
    private final AtomicBoolean wantsRoom = new AtomicBoolean();
    private volatile Runnable onRoom = () -> {};
    /** Set by {@link #wantsEmpty}: the stream calls {@link #onRoom} once it has taken every write. */
    private final AtomicBoolean wantsEmpty = new AtomicBoolean();
    /** Set by the stream when the client sent a text message, which ended the connection. */
    private volatile boolean textSeen;

    /** The stream's side, from {@link WebSocketStage}: each call is an asynchronous call into the stage. */
    WebSocketStream(Consumer<BiConsumer<Optional<ByteString>, Throwable>> reads, Consumer<ByteString> writes,
                    Consumer<Boolean> close) {
        this.reads = reads;
        this.writes = writes;
        this.close = close;
    }

    /**
     * The flow Pekko HTTP runs for an upgraded request: {@code accepted} gets the stream once it runs.
     * Both directions end together: a client that closes ends the broker's side, and the other way round.
     */
    static Flow<Message, Message, NotUsed> flow(Consumer<WebSocketStream> accepted) {
        return Flow.fromGraph(WebSocketStage.INSTANCE).mapMaterializedValue(stream -> {
            accepted.accept(stream);
            return NotUsed.getInstance();
        });
    }

    /**
     * Asks for the client's next chunk: {@code then} gets it, or empty when the client has closed, on the
     * stream's thread. At most one pull at a time.
     */
    void pull(BiConsumer<Optional<ByteString>, Throwable> then) {
        reads.accept(then);
    }

    /** Who to tell when an offer that found the queue full may be tried again (on the stream's thread). */
    void onRoom(Runnable onRoom) {
        this.onRoom = onRoom;
    }

    /**
     * Hands bytes to the socket's side without waiting: true if the queue took them (or the stream has ended,
     * which comes to {@link #whenEnded}); false if it is full, and the {@link #onRoom} call back comes once it
     * has room.
     */
    boolean offer(ByteString bytes) {
        if (queuedWrites.incrementAndGet() > OUTGOING_WRITES) {
            queuedWrites.decrementAndGet();
            wantsRoom.set(true);
            // The stream may have taken a write between the count and the flag: try once more.
            if (queuedWrites.incrementAndGet() > OUTGOING_WRITES) {
                queuedWrites.decrementAndGet();
                return false;
            }
            wantsRoom.compareAndSet(true, false);  // if the stream took the flag already, one extra call back: harmless
        }
        queuedBytes.addAndGet(bytes.size());
        writes.accept(bytes);
        return true;
    }

    /** One {@link #onRoom} call back once the stream has taken every write offered (now, if it has). */
    void wantsEmpty() {
        wantsEmpty.set(true);
        if (queuedWrites.get() == 0 && wantsEmpty.compareAndSet(true, false)) onRoom.run();
    }

    /** Bytes offered that the stream has not yet taken. */
    long queuedBytes() {
        return queuedBytes.get();
    }

    /** Ends the broker's side after what was offered: the client gets a close frame. */
    void complete() {
        close.accept(false);
    }

    /** Ends both sides now, without waiting for what was offered. */
    public void cancel() {
        close.accept(true);
    }

    /** {@code then} runs once the connection has ended, whichever side ended it, with the failure if it failed. */
    void whenEnded(BiConsumer<Done, Throwable> then) {
        ended.whenComplete(then);
    }

    /** Why the connection ended, once it has, when the broker did not end it. */
    String endedBecause(Throwable failure) {
        if (textSeen) return "a text WebSocket message (MQTT is carried in binary messages only)";
        if (failure == null) return "closed";
        var cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    }

    // ---- from the stage, on the stream's thread

    /** The stream took a write towards the socket. */
    void taken(ByteString bytes) {
        queuedWrites.decrementAndGet();
        queuedBytes.addAndGet(-bytes.size());
        if (wantsRoom.get() && wantsRoom.compareAndSet(true, false)) {
            onRoom.run();
        } else if (queuedWrites.get() == 0 && wantsEmpty.get() && wantsEmpty.compareAndSet(true, false)) {
            onRoom.run();
        }
    }

    void textSeen() {
        textSeen = true;
    }

    void ended(Throwable failure) {
        if (failure == null) ended.complete(Done.getInstance());
        else ended.completeExceptionally(failure);
    }
}
