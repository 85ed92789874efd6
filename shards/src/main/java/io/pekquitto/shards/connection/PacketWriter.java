package io.pekquitto.shards.connection;

import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.shards.stats.ShardStats;
import java.nio.ByteBuffer;
import java.util.function.Consumer;
import org.apache.pekko.util.ByteString;

/**
 * Encodes packets for the client and writes them to the transport. While corked, writes collect
 * (as a rope of byte strings, no copy) and go out as one buffer at {@link #uncork()}: the
 * acknowledgements of one read, a batch of deliveries. A PUBLISH with a large payload is its encoded
 * head followed by the payload itself, the one array every subscriber's copy shares: the transport
 * copies it once, into the socket's buffer.
 */
final class PacketWriter implements Consumer<Packet>, DeliveryWindow.Backlog {
    /** From this size on a payload is shared rather than copied into each encoded PUBLISH. */
    static final int SHARED_PAYLOAD = 1024;

    private final Transport transport;
    private final ShardStats stats;
    private ProtocolVersion version = ProtocolVersion.MQTT_3_1_1;
    private boolean corked;
    private ByteString corkedBytes = ByteString.emptyByteString();

    PacketWriter(Transport transport, ShardStats stats) {
        this.transport = transport;
        this.stats = stats;
    }

    /** The version packets are encoded for, once CONNECT has told it. */
    void version(ProtocolVersion connectionVersion) {
        version = connectionVersion;
    }

    @Override
    public void accept(Packet packet) {
        var bytes = packet instanceof Publish publish && publish.payload().length() >= SHARED_PAYLOAD
                ? bytes(PacketEncoder.encodeHead(publish, version)).concat(publish.payload().view(ByteString::fromArrayUnsafe))
                : bytes(PacketEncoder.encode(packet, version));
        stats.packetSent(bytes.size());
        if (packet instanceof Publish publish) stats.publishSent(publish.payload().length());
        if (corked) {
            corkedBytes = corkedBytes.concat(bytes);
        } else {
            transport.write(bytes);
        }
    }

    private static ByteString bytes(ByteBuffer encoded) {
        return ByteString.fromArrayUnsafe(encoded.array(), encoded.arrayOffset() + encoded.position(), encoded.remaining());
    }

    void cork() {
        corked = true;
    }

    void uncork() {
        corked = false;
        if (corkedBytes.isEmpty()) return;
        var bytes = corkedBytes;
        corkedBytes = ByteString.emptyByteString();
        transport.write(bytes);
    }

    /** Bytes written but not yet handed to the socket: the measure of a client that does not read. */
    @Override
    public long backlog() {
        return transport.bufferedBytes() + corkedBytes.size();
    }

    /** Flushes what was written and closes the transport. */
    void close() {
        uncork();
        transport.close();
    }
}
