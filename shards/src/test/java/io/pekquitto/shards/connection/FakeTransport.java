package io.pekquitto.shards.connection;

import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.codec.PacketReader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.pekko.util.ByteString;

/** An in-memory {@link Transport} that records what the connection wrote and whether it closed. */
final class FakeTransport implements Transport {
    private final List<ByteString> written = new ArrayList<>();
    final AtomicBoolean closed = new AtomicBoolean();

    @Override
    public synchronized void write(ByteString bytes) { written.add(bytes); }

    @Override
    public void readMore() {}

    @Override
    public void close() { closed.set(true); }

    @Override
    public long bufferedBytes() { return 0; }

    /** The packets written so far, decoded as the given version would read them. */
    synchronized List<Packet> packets(ProtocolVersion version) {
        var reader = new PacketReader(Integer.MAX_VALUE, version);
        var packets = new ArrayList<Packet>();
        for (var bytes : written) {
            reader.feed(bytes.asByteBuffer());
            for (Packet p = reader.poll(); p != null; p = reader.poll()) packets.add(p);
        }
        return packets;
    }
}
