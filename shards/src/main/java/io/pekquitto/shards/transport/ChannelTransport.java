package io.pekquitto.shards.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.internal.SystemPropertyUtil;
import io.pekquitto.auth.tls.CertificateNames;
import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import io.pekquitto.shards.connection.Transport;
import io.pekquitto.shards.listener.ConnectionCount;
import io.pekquitto.shards.transport.framing.Framing;
import io.pekquitto.shards.transport.framing.Refusal;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.util.ByteString;

/**
 * One client socket as its {@link Connection} sees it: a Netty channel on the shard's event loop, and
 * the last handler of its pipeline (after the PROXY header's decoder, TLS and a WebSocket's HTTP and
 * frame codec, where the listener has them). Reads are pulled: {@link #readMore()} opens the connection's
 * demand for one chunk, the bytes of the socket's next read (one buffer), told at the read's end; a read
 * that gives the connection nothing (a TLS handshake record, part of a PROXY header, an HTTP request, part
 * of a WebSocket frame) is followed by the next one. The socket stays registered for reading while the
 * connection keeps asking, which it does before the loop polls again, so a read costs no {@code epoll_ctl};
 * a read that comes before the connection asked is held, and the socket leaves the poll until it asks.
 * Writes of one turn of the loop go out
 * in one flush, queued behind the turn; a handler before this one may frame them ({@link Framing}: a
 * WebSocket's). Every method runs on the shard's thread, which the connection actor shares: nothing here
 * is synchronized.
 */
final class ChannelTransport extends ChannelInboundHandlerAdapter implements Transport, Runnable {
    /** How long a closing socket keeps reading what the client still sends before it is cut. */
    static final Duration LINGER = Duration.ofSeconds(1);

    /**
     * How long a close may wait for the client to read what was written before it: a client that reads
     * nothing would otherwise keep those bytes in the heap, and its socket open, for ever.
     */
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    /** What Netty's outbound buffer counts per queued write beyond its bytes (its own setting, read the same way). */
    private static final int ENTRY_OVERHEAD = SystemPropertyUtil.getInt("io.netty.transport.outboundBufferEntrySizeOverhead", 96);

    private final Channel channel;
    private final ConnectionRef connection;
    /** Its listener's count, which it leaves once closed. */
    private final ConnectionCount listenerCount;
    private final ShardChannels shard;
    /** TLS on this socket, or null. */
    private final SslHandler tls;
    private final boolean certificateNameAsUsername;
    /** The handler that frames the writes from now on (a WebSocket's, once upgraded), or null. */
    private Framing framing;
    /** The client's address: the socket's peer, until a PROXY header names another. */
    private InetSocketAddress remote;
    /** The buffers of the read under way, copied out as one chunk at its end; null if none. */
    private CompositeByteBuf received;
    /**
     * Writes since the last flush: without TLS or framing, entries not yet flushed in Netty's outbound buffer;
     * their bytes, held above that buffer by TLS or the framing until the flush.
     */
    private int unflushedWrites;
    private long unflushedBytes;
    /** The connection asked for bytes and has not had them yet. */
    private boolean demand;
    /** The socket is polled for reads (Netty's auto-read): off until the first {@link #readMore()}, and while a read is held. */
    private boolean reading;
    private boolean flushQueued;
    private boolean closeRequested;
    private boolean closed;
    /** The connection waits to hear that what it wrote is taken ({@link #tellWhenTaken}). */
    private boolean takenWanted;
    /** Why the socket closes, when this side knows better than "closed by the client". */
    private String cause;

    ChannelTransport(Channel channel, ConnectionRef connection, ConnectionCount listenerCount, ShardChannels shard,
                     SslHandler tls, boolean certificateNameAsUsername, InetSocketAddress remote) {
        this.channel = channel;
        this.connection = connection;
        this.listenerCount = listenerCount;
        this.shard = shard;
        this.tls = tls;
        this.certificateNameAsUsername = certificateNameAsUsername;
        this.remote = remote;
    }

    // ---- Transport, for the connection

    @Override
    public void write(ByteString bytes) {
        assert channel.eventLoop().inEventLoop() : "written off its shard's thread";
        if (closed || closeRequested) return;
        unflushedBytes += bytes.size();
        unflushedWrites++;
        channel.write(directCopy(bytes), channel.voidPromise());
        queueFlush();
    }

    private void queueFlush() {
        if (flushQueued) return;
        flushQueued = true;
        channel.eventLoop().execute(this);
    }

    /** The flush of a turn's writes, queued behind the tasks already waiting on the loop: one syscall for them all. */
    @Override
    public void run() {
        flushQueued = false;
        flush();
    }

    private void flush() {
        unflushedWrites = 0;
        unflushedBytes = 0;
        if (!closed) channel.flush();
    }

    @Override
    public void readMore() {
        assert channel.eventLoop().inEventLoop() : "read off its shard's thread";
        if (closed || closeRequested) return;
        demand = true;
        if (received != null) tellReceived();  // the read that came before this demand
        keepReading();
    }

    /** Polls the socket for reads from now on: one {@code epoll_ctl} if it was left out of the poll, else none. */
    private void keepReading() {
        if (reading) return;
        reading = true;
        channel.config().setAutoRead(true);
    }

    @Override
    public void close() {
        if (closed || closeRequested) return;
        closeRequested = true;
        flush();
        // After the last write (a WebSocket's close frame, TLS's close_notify): our side of the stream ends
        // (FIN), the client's may go on for a while, read and dropped, until it closes or LINGER is over; a
        // WebSocket client's close frame in answer to ours ends it at once.
        ChannelFuture closeFrame = framing != null ? framing.end() : null;
        ChannelFuture lastWrite = tls != null ? tls.closeOutbound()
                : closeFrame != null ? closeFrame : channel.writeAndFlush(Unpooled.EMPTY_BUFFER);
        lastWrite.addListener(written -> {
            if (!channel.isOpen()) return;
            if (channel instanceof DuplexChannel duplex) duplex.shutdownOutput();
            keepReading();
            channel.eventLoop().schedule(() -> channel.close(), LINGER.toMillis(), TimeUnit.MILLISECONDS);
        });
        // Bytes still to write: the client may never read them.
        if (!lastWrite.isDone()) {
            channel.eventLoop().schedule(this::abort, CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** The socket is reset (RST): what waits to be written is dropped with it. */
    @Override
    public void abort() {
        if (closed || !channel.isOpen()) return;
        closeRequested = true;
        if (cause == null) cause = "aborted";
        channel.config().setOption(ChannelOption.SO_LINGER, 0);
        channel.close();
    }

    /**
     * Now if nothing waits to be written; else once the socket took every write made so far: an empty
     * write's promise, which Netty completes in order, after them.
     */
    @Override
    public void tellWhenTaken() {
        if (closed || closeRequested || takenWanted) return;
        if (bufferedBytes() == 0) {
            connection.tell(Connection.WritesTaken.INSTANCE);
            return;
        }
        takenWanted = true;
        unflushedWrites++;
        channel.write(Unpooled.EMPTY_BUFFER).addListener(taken -> {
            takenWanted = false;
            if (taken.isSuccess() && !closed) connection.tell(Connection.WritesTaken.INSTANCE);
        });
        queueFlush();
    }

    @Override
    public long bufferedBytes() {
        var out = channel.unsafe().outboundBuffer();
        if (out == null) return 0;
        // Netty counts each queued write's overhead too: the measure of a slow reader is its bytes only
        // (with a WebSocket's frame headers, a few bytes per flush).
        boolean heldUntilFlush = tls != null || framing != null;
        int entries = out.size() + (heldUntilFlush ? 0 : unflushedWrites);
        long queued = Math.max(0, out.totalPendingWriteBytes() - (long) ENTRY_OVERHEAD * entries);
        return queued + (heldUntilFlush ? unflushedBytes : 0);
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public Optional<String> peerCommonName() {
        if (tls == null || !certificateNameAsUsername) return Optional.empty();
        return CertificateNames.peerCommonName(tls.engine().getSession());
    }

    // ---- the channel's events

    /** The PROXY header, read before any other byte ({@link ProxyHeaderRead}): the client's address, if it names one. */
    void proxied(HAProxyMessage header) {
        remote = ProxyAddresses.clientAddress(header, remote);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        var bytes = (ByteBuf) message;
        if (closeRequested || !bytes.isReadable()) {
            bytes.release();
            return;
        }
        if (received == null) received = ctx.alloc().compositeBuffer(Integer.MAX_VALUE);
        received.addComponent(true, bytes);  // kept, not copied: the read's buffers are copied once, at its end
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (closed || closeRequested || received == null) return;  // lingering reads are dropped as they come
        if (demand) {
            tellReceived();
        } else {
            // Came before the connection asked (it is busy, or held back): kept, and no more read until it asks.
            reading = false;
            channel.config().setAutoRead(false);
        }
    }

    private void tellReceived() {
        var chunk = new byte[received.readableBytes()];
        received.readBytes(chunk);
        dropReceived();
        demand = false;
        connection.tell(new Connection.BytesReceived(ByteString.fromArrayUnsafe(chunk)));
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess() && cause == null) {
            cause = "TLS: " + Failures.message(handshake.cause());
        }
        if (event instanceof Framing framed) framing = framed;
        if (event instanceof Refusal refusal) {
            if (cause == null) cause = refusal.cause();
            close();  // what the client sends after it is dropped
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable failure) {
        if (cause == null) cause = Failures.describe(failure);
        abort();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // What the client sent before it closed (a last read held for want of demand, or Netty's reads up to the
        // end of the stream) reaches the connection first: its last PUBLISHes and its DISCONNECT count.
        if (received != null && !closed && !closeRequested) tellReceived();
        closed(cause != null ? cause : closeRequested ? "closed" : "closed by the client");
    }

    /** The socket could not be served: it is closed, and the connection told why. */
    void failed(String why) {
        if (cause == null) cause = why;
        closed(cause);
    }

    /** The socket closed, whoever closed it; the connection hears of it once, and the listener has a place again. */
    private void closed(String why) {
        if (closed) return;
        abandoned();
        connection.tell(new Connection.TransportClosed(why));
    }

    private void dropReceived() {
        if (received == null) return;
        received.release();
        received = null;
    }

    /**
     * One copy, into the socket's own kind of buffer: a batch of packets, or a PUBLISH's head and the payload
     * every subscriber shares, each fragment copied in place (Netty would copy a heap buffer there anyway).
     */
    private ByteBuf directCopy(ByteString bytes) {
        var buffer = channel.alloc().ioBuffer(bytes.size());
        for (var fragment : bytes.getByteBuffers()) buffer.writeBytes(fragment);
        return buffer;
    }

    /** The shard stops, its connections with it: the socket is cut, and only the listener's place is given back. */
    void abandoned() {
        if (closed) return;
        closed = true;
        dropReceived();
        listenerCount.closed();
        shard.forget(this);
        channel.close();
    }
}
