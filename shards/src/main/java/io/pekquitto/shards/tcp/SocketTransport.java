package io.pekquitto.shards.tcp;

import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.Transport;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.io.Tcp;
import org.apache.pekko.io.TcpMessage;
import org.apache.pekko.util.ByteString;

/**
 * One client socket as its {@link Connection} sees it, over a Pekko IO connection actor in pull mode:
 * no stream, no stage, one object. Reads come one chunk per {@link #readMore()}; writes go one at a
 * time with an acknowledgement, and what the connection writes meanwhile is concatenated (a rope, no
 * copy) into the next one. Every method runs on the shard's thread: the connection actor and the
 * shard's {@link ShardSockets} share it, so nothing here is synchronized.
 */
final class SocketTransport implements Transport {
    /** The acknowledgement of a write: the bytes are in the socket's buffer. */
    static final class WriteAck implements Tcp.Event {
        static final WriteAck INSTANCE = new WriteAck();

        private WriteAck() {}
    }

    private final ActorRef socket;
    private final ActorRef sockets;
    private final ConnectionRef connection;
    private ByteString pending = ByteString.emptyByteString();
    private int writing;
    /** A ResumeReading is out and no chunk has come since: asking again would only wake the selector. */
    private boolean reading;
    private boolean closeRequested;
    private boolean closed;

    /**
     * @param socket     Pekko IO's actor of this connection
     * @param sockets    the shard's {@link ShardSockets}, registered as its handler: acknowledgements come back there
     * @param connection the connection the bytes are for, live or parked
     */
    SocketTransport(ActorRef socket, ActorRef sockets, ConnectionRef connection) {
        this.socket = socket;
        this.sockets = sockets;
        this.connection = connection;
    }

    @Override
    public void write(ByteString bytes) {
        if (closed || closeRequested) return;
        pending = pending.concat(bytes);
        if (writing == 0) flush();
    }

    @Override
    public void readMore() {
        if (closed || reading) return;
        reading = true;
        socket.tell(TcpMessage.resumeReading(), sockets);
    }

    @Override
    public void close() {
        if (closed || closeRequested) return;
        closeRequested = true;
        if (writing == 0) flush();
    }

    @Override
    public long bufferedBytes() {
        return writing + pending.size();
    }

    // ---- from the shard's ShardSockets

    void received(ByteString data) {
        reading = false;
        if (closeRequested) {
            socket.tell(TcpMessage.resumeReading(), sockets);  // lingering: read on, and drop it
            return;
        }
        connection.tell(new Connection.BytesReceived(data));
    }

    void written() {
        writing = 0;
        flush();
    }

    /** The socket closed, whoever closed it; the connection hears of it once. */
    void closed(String cause) {
        if (closed) return;
        closed = true;
        pending = ByteString.emptyByteString();
        connection.tell(new Connection.TransportClosed(cause));
    }

    private void flush() {
        if (!pending.isEmpty()) {
            writing = pending.size();
            socket.tell(TcpMessage.write(pending, WriteAck.INSTANCE), sockets);
            pending = ByteString.emptyByteString();
        } else if (closeRequested && !closed) {
            // After the last write: our side of the stream ends (FIN), the client's may go on for a while.
            socket.tell(TcpMessage.confirmedClose(), sockets);
            socket.tell(TcpMessage.resumeReading(), sockets);
            sockets.tell(new ShardSockets.Linger(socket), ActorRef.noSender());
        }
    }
}
