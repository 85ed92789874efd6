package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.codec.PacketReader;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.util.ByteString;

/** An in-memory {@link Transport} that records what the connection wrote and whether it closed. */
final class FakeTransport implements Transport {
    private final List<ByteString> written = new ArrayList<>();
    final AtomicBoolean closed = new AtomicBoolean();

    /** While set, what is written stays buffered until {@link #take()}: a socket that has not taken it yet. */
    volatile boolean holding;
    private long buffered;
    /** How many times the connection asked to hear that its writes were taken. */
    final AtomicInteger takenAsked = new AtomicInteger();
    /** Told {@link Connection.WritesTaken} when it asks, unless holding; none: nobody is told. */
    volatile ConnectionRef connection;

    @Override
    public synchronized void write(ByteString bytes) {
        written.add(bytes);
        if (holding) buffered += bytes.size();
    }

    /** The socket takes what was buffered. */
    synchronized void take() {
        buffered = 0;
    }

    @Override
    public void tellWhenTaken() {
        takenAsked.incrementAndGet();
        if (!holding && connection != null) connection.tell(Connection.WritesTaken.INSTANCE);
    }

    @Override
    public void readMore() {}

    @Override
    public void close() { closed.set(true); }

    @Override
    public synchronized long bufferedBytes() { return buffered; }

    /** The client's address as the transport tells it: a PROXY header's, say. */
    volatile InetSocketAddress remote = new InetSocketAddress("127.0.0.1", 1);

    @Override
    public InetSocketAddress remoteAddress() { return remote; }

    /**
     * The CONNACK of a refused connection, read as {@code version} reads it: once the connection has
     * closed, it must have written that and nothing else.
     */
    ConnAck refusal(ActorTestKit testKit, ProtocolVersion version) {
        var packets = testKit.createTestProbe().awaitAssert(Duration.ofSeconds(3), Duration.ofMillis(2), () -> {
            assertTrue(closed.get(), "closed after the refusal");
            return packets(version);
        });
        assertEquals(1, packets.size(), packets::toString);
        return assertInstanceOf(ConnAck.class, packets.get(0));
    }

    /** Waits (up to 3 s) until {@code count} packets are written, read as {@code version} reads them; returns them. */
    List<Packet> awaitPackets(ActorTestKit testKit, ProtocolVersion version, int count) {
        return testKit.createTestProbe().awaitAssert(Duration.ofSeconds(3), Duration.ofMillis(2), () -> {
            var packets = packets(version);
            assertEquals(count, packets.size(), packets::toString);
            return packets;
        });
    }

    /** Waits (up to 3 s) until the connection has closed the transport. */
    void awaitClosed(ActorTestKit testKit) {
        testKit.createTestProbe().awaitAssert(Duration.ofSeconds(3), Duration.ofMillis(2), () -> {
            assertTrue(closed.get(), "closed");
            return null;
        });
    }

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
