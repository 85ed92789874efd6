package io.pekquitto.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One non-blocking MQTT client connection on an {@link EventLoop}: connects, sends CONNECT, frames
 * what it reads and batches what it writes into one direct buffer flushed once per wake-up,
 * through its {@link Link} (the socket, TLS, WebSocket frames). Subclasses react to packets.
 * Everything runs on the loop thread.
 */
abstract class Connection implements FrameParser.Handler {

    final EventLoop loop;
    final InetSocketAddress address;
    final boolean v5;
    final FrameParser parser;
    private final int writeBuffer;
    ByteBuffer out; // write mode
    SocketChannel channel;
    /** What MQTT's bytes go through: the socket, TLS, WebSocket frames (a new one per socket). */
    Link link;
    SelectionKey key;
    boolean connected; // CONNACK accepted
    boolean closed = true;
    private int interest;

    Connection(EventLoop loop, InetSocketAddress address, boolean v5, int readBuffer, int writeBuffer) {
        this.loop = loop;
        this.address = address;
        this.v5 = v5;
        this.parser = new FrameParser(readBuffer, 16 * 1024 * 1024);
        this.writeBuffer = writeBuffer;
        this.out = ByteBuffer.allocateDirect(writeBuffer);
    }

    /** Opens a new socket (also after a close, to reconnect). */
    final void open() {
        try {
            parser.reset();
            out.clear();
            connected = false;
            closed = false;
            channel = SocketChannel.open();
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            // Before connect: the receive window is negotiated in the handshake.
            if (receiveBufferSize() > 0) channel.setOption(StandardSocketOptions.SO_RCVBUF, receiveBufferSize());
            link = loop.transport().link(channel, address, parser.buffer().capacity(), writeBuffer);
            boolean done = channel.connect(address);
            key = channel.register(loop.selector(), done ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT, this);
            interest = key.interestOps();
            if (done) handshake();
        } catch (IOException e) {
            fail("connect: " + e.getMessage());
        }
    }

    /** The CONNECT packet to send once the TCP connection is up. */
    abstract byte[] connectPacket();

    /** CONNACK accepted. */
    abstract void onConnected();

    /** A packet other than CONNACK. */
    abstract void onPacket(int header, ByteBuffer frame, int bodyOffset, int bodyLength) throws IOException;

    /** The connection failed or the broker closed it; {@code closed} is already set. */
    abstract void onFailed(String reason);

    /** Called after each batch of reads, before the flush: publishers refill their window here. */
    void afterRead() {}

    /** The socket's receive buffer in bytes, set before connecting; 0 leaves the system's default. */
    int receiveBufferSize() {
        return 0;
    }

    /** Whether to stay selected for reading; a subscriber that plays a stuck consumer stops. */
    boolean wantsRead() {
        return true;
    }

    /** Whether to stay selected for writing with nothing pending (a QoS 0 publisher pumping). */
    boolean wantsWrite() {
        return false;
    }

    /** Called when writable (after pending bytes went out): a QoS 0 publisher fills its buffer. */
    void onWritable() {}

    final void onSelected(SelectionKey selected) {
        try {
            int ready = selected.readyOps();
            if ((ready & SelectionKey.OP_CONNECT) != 0) {
                channel.finishConnect();
                setInterest(SelectionKey.OP_READ);
                handshake();
                return;
            }
            if (!link.handshaken()) {
                handshake();
                return;
            }
            if ((ready & SelectionKey.OP_READ) != 0) {
                if (!read()) return;
                afterRead();
            }
            if (closed) return;
            if ((ready & SelectionKey.OP_WRITE) != 0) {
                writePending();
                onWritable();
            }
            flush();
        } catch (CancelledKeyException e) {
            // closed meanwhile
        } catch (IOException e) {
            fail(e.getMessage() == null ? e.toString() : e.getMessage());
        }
    }

    /** The link's handshakes (TLS, WebSocket upgrade), as far as the socket allows; CONNECT goes once they are over. */
    private void handshake() throws IOException {
        if (link.handshake()) {
            send(connectPacket());
            flush();
        } else {
            setInterest(SelectionKey.OP_READ | (link.hasPendingOutput() ? SelectionKey.OP_WRITE : 0));
        }
    }

    /** Reads what the socket has and hands on every complete frame; false once closed. */
    private boolean read() throws IOException {
        // A link may hold more than the parser's buffer takes (TLS decrypts, WebSocket unframes): parse, then take the rest.
        for (int round = 0; round < 1_000; round++) {
            int n = link.read(parser.buffer());
            if (n < 0) {
                fail("connection closed by the broker");
                return false;
            }
            parser.parse(this);
            if (closed) return false;
            if (!link.hasBufferedInput()) return true;
        }
        return true;
    }

    @Override
    public final void onFrame(int header, ByteBuffer frame, int bodyOffset, int bodyLength) throws IOException {
        if (Mqtt.type(header) == Mqtt.CONNACK) {
            int code = bodyLength >= 2 ? frame.get(bodyOffset + 1) & 0xFF : -1;
            if (code != 0) {
                fail("CONNACK refused with code " + code);
                return;
            }
            connected = true;
            onConnected();
        } else {
            onPacket(header, frame, bodyOffset, bodyLength);
        }
    }

    /** Appends bytes, flushing or growing the buffer when they do not fit (rare: acks only). */
    final void send(byte[] bytes) throws IOException {
        ensureRoom(bytes.length);
        out.put(bytes);
    }

    final void ensureRoom(int bytes) throws IOException {
        if (out.remaining() >= bytes) return;
        writePending();
        if (out.remaining() >= bytes) return;
        var bigger = ByteBuffer.allocateDirect(Math.max(out.capacity() * 2, out.position() + bytes));
        out.flip();
        bigger.put(out);
        out = bigger;
    }

    /** Writes what is pending and selects for writing while anything is left. */
    final void flush() throws IOException {
        if (closed) return;
        writePending();
        boolean pending = out.position() > 0 || link.hasPendingOutput();
        int wanted = (wantsRead() ? SelectionKey.OP_READ : 0) | (pending || wantsWrite() ? SelectionKey.OP_WRITE : 0);
        setInterest(wanted);
    }

    private void writePending() throws IOException {
        if (out.position() == 0) {
            link.flushPending();  // what the link's layers kept when the socket took less last time
            return;
        }
        out.flip();
        link.write(out);
        out.compact();
    }

    private void setInterest(int ops) {
        if (interest != ops) {
            key.interestOps(ops);
            interest = ops;
        }
    }

    /** Sends DISCONNECT (best effort) and closes. */
    final void disconnect() {
        if (closed) return;
        try {
            if (connected) {
                send(Mqtt.DISCONNECT_PACKET);
                writePending();
            }
        } catch (IOException ignored) {
            // closing anyway
        }
        closeQuietly();
    }

    final void closeQuietly() {
        closed = true;
        connected = false;
        try {
            if (channel != null) channel.close();
        } catch (IOException ignored) {
            // nothing to answer at close
        }
    }

    final void fail(String reason) {
        boolean wasOpen = !closed;
        closeQuietly();
        if (wasOpen) onFailed(reason);
    }

    /** Subscribes to one filter (packet id 1); a write that fails fails the connection. */
    final void subscribe(String filter, int qos) {
        try {
            send(Mqtt.subscribe(1, filter, qos, v5));
        } catch (IOException e) {
            fail(e.getMessage());
        }
    }

    /** The QoS granted by the SUBACK of {@link #subscribe}, or -1 after failing the connection if it refused. */
    final int granted(ByteBuffer frame, int bodyOffset, int bodyLength, String filter) {
        int code = frame.get(bodyOffset + bodyLength - 1) & 0xFF;
        if (code < 0x80) return code;
        fail("SUBACK refused " + filter + " with code " + code);
        return -1;
    }
}
