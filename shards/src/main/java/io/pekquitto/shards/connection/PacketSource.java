package io.pekquitto.shards.connection;

import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.codec.PacketReader;
import java.nio.ByteBuffer;
import org.apache.pekko.util.ByteString;

/**
 * Packets from the client, read from the transport on demand: the next chunk is asked for only once
 * every packet of the last one is handled, so a connection that cannot keep up stops reading its
 * socket instead of buffering. If the chunk routed messages, the shard asks for the next one once it
 * has routed them (its mailbox is FIFO): a publisher never runs ahead of its shard. What the reader
 * holds of unfinished packets counts against the shard's {@link PartialPacketBudget}.
 */
final class PacketSource {
    private final PacketReader reader;
    private final Transport transport;
    private final PartialPacketBudget budget;
    /** The bytes of unfinished packets this connection holds, as last told to the budget. */
    private int held;
    private boolean routedSinceRead;

    PacketSource(PacketReader reader, Transport transport, PartialPacketBudget budget) {
        this.reader = reader;
        this.transport = transport;
        this.budget = budget;
    }

    /** A chunk from the socket, as an array-backed buffer: the codec decodes strings in place. */
    void feed(ByteString bytes) {
        reader.feed(ByteBuffer.wrap(bytes.toArrayUnsafe()));
    }

    /**
     * The next whole packet, or null when more bytes are needed.
     *
     * @throws MalformedPacketException for a malformed packet, and QUOTA_EXCEEDED when what this connection
     *     holds of an unfinished packet takes the shard past its budget
     */
    Packet poll() {
        var packet = reader.poll();
        if (packet == null) {
            // The chunk is used up: what stays held is a partial packet, and costs the shard's budget.
            int now = reader.bytesHeld();
            int before = held;
            held = now;
            if (!budget.change(before, now)) {
                throw new MalformedPacketException(ReasonCode.QUOTA_EXCEEDED,
                        "the shard's connections hold more than its budget of bytes in partial packets");
            }
        }
        return packet;
    }

    /** The connection is done with its reader: its partial packet no longer costs the shard. */
    void release() {
        budget.change(held, 0);
        held = 0;
    }

    /** The version learned from CONNECT, even from one that was malformed after its protocol level. */
    ProtocolVersion version() {
        return reader.version();
    }

    /** Whether bytes of an unfinished packet are buffered. */
    boolean hasPartialPacket() {
        return reader.hasPartialPacket();
    }

    /** This chunk routed a message. */
    void routed() {
        routedSinceRead = true;
    }

    /** Asks for the next chunk; returns true if the shard must ask for it instead, after routing this one's messages. */
    boolean readMoreUnlessRouted() {
        if (!routedSinceRead) {
            transport.readMore();
            return false;
        }
        routedSinceRead = false;
        return true;
    }
}
