package io.pekquitto.shards.websocket;

import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.Transport;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.util.ByteString;

/**
 * One WebSocket connection as its {@link Connection} sees it, over a {@link WebSocketStream}: reads one
 * chunk per {@link #readMore()}, as {@code transport.ChannelTransport} does; each write goes to the stream's
 * bounded queue at once (a binary message each), and when the queue is full what the connection writes
 * is concatenated until the stream has room. The stream answers on its own threads; its answers come
 * back through the shard's {@link ShardWebSockets}, so every method here runs on the shard's thread.
 */
final class WebSocketTransport implements Transport {
    private final WebSocketStream stream;
    private final ActorRef<ShardWebSockets.Event> events;
    private final ConnectionRef connection;
    private final InetSocketAddress client;
    private final Optional<String> peerCommonName;
    /** Bytes from the connection that the stream's queue had no room for yet. */
    private ByteString pending = ByteString.emptyByteString();
    /** A pull is out: asking again would fail the queue. */
    private boolean reading;
    private boolean closeRequested;
    /** The connection waits to hear that what it wrote is taken ({@link #tellWhenTaken}). */
    private boolean takenWanted;
    /** The broker's side of the stream is completed: after the last write of a close. */
    private boolean completed;
    private boolean closed;

    WebSocketTransport(WebSocketStream stream, ActorRef<ShardWebSockets.Event> events, ConnectionRef connection,
                       InetSocketAddress client, Optional<String> peerCommonName) {
        this.stream = stream;
        this.events = events;
        this.connection = connection;
        this.client = client;
        stream.onRoom(() -> events.tell(new ShardWebSockets.Written(this)));
        this.peerCommonName = peerCommonName;
    }

    @Override
    public void write(ByteString bytes) {
        if (closed || closeRequested) return;
        pending = pending.concat(bytes);
        flush();
    }

    @Override
    public void readMore() {
        if (closed || reading) return;
        reading = true;
        stream.pull((chunk, failure) -> events.tell(new ShardWebSockets.Pulled(this,
                failure == null ? chunk : Optional.empty())));
    }

    @Override
    public void close() {
        if (closed || closeRequested) return;
        closeRequested = true;
        flush();
    }

    /** Both sides of the stream end now; what waited for its queue is dropped. */
    @Override
    public void abort() {
        if (closed) return;
        closeRequested = true;
        pending = ByteString.emptyByteString();
        stream.cancel();
    }

    /** Once the stream has taken every write offered to it (now, if it has). */
    @Override
    public void tellWhenTaken() {
        if (closed || closeRequested) return;
        takenWanted = true;
        stream.wantsEmpty();
    }

    @Override
    public long bufferedBytes() {
        return stream.queuedBytes() + pending.size();
    }

    /** The socket's peer, or the client a PROXY header named: read before the upgrade, so known from the start. */
    @Override
    public InetSocketAddress remoteAddress() {
        return client;
    }

    @Override
    public Optional<String> peerCommonName() {
        return peerCommonName;
    }

    // ---- from the stream, through the shard's ShardWebSockets

    /** The chunk a pull asked for; empty when the client has closed (the end itself comes to {@link #ended}). */
    void pulled(Optional<ByteString> chunk) {
        reading = false;
        if (closed || chunk.isEmpty()) return;
        if (closeRequested) {
            readMore();  // closing: read on until the client's close frame, and drop it
            return;
        }
        connection.tell(new Connection.BytesReceived(chunk.get()));
    }

    /** The stream has room again after an offer found its queue full, or has taken every write (as asked). */
    void written() {
        flush();
        if (!takenWanted || closed || !pending.isEmpty() || stream.queuedBytes() > 0) return;
        takenWanted = false;
        connection.tell(Connection.WritesTaken.INSTANCE);
    }

    /** The connection has ended, whoever ended it; the connection hears of it once. */
    void ended(String cause) {
        if (closed) return;
        closed = true;
        pending = ByteString.emptyByteString();
        connection.tell(new Connection.TransportClosed(cause));
    }

    private void flush() {
        if (closed) return;
        if (!pending.isEmpty()) {
            if (!stream.offer(pending)) return;  // full: the stream calls back with room
            pending = ByteString.emptyByteString();
        }
        if (closeRequested && !completed) {
            completed = true;
            stream.complete();  // after the last write: a close frame, then the socket closes
        }
    }
}
