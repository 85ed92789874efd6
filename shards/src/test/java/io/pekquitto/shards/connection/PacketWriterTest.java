package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.PingResp;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.PubAck;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.codec.PacketReader;
import io.pekquitto.shards.stats.ShardStats;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.Test;

class PacketWriterTest {

    /** Records each write separately, so that a test sees how many writes reached the socket. */
    private static final class RecordingTransport implements Transport {
        final List<ByteString> writes = new ArrayList<>();
        long buffered;
        boolean closed;

        @Override public void write(ByteString bytes) { writes.add(bytes); }
        @Override public void readMore() {}
        @Override public void close() { closed = true; }
        @Override public long bufferedBytes() { return buffered; }
        @Override public java.net.InetSocketAddress remoteAddress() { return TestConnections.CLIENT.address(); }
        @Override public void tellWhenTaken() {}
    }

    private final RecordingTransport transport = new RecordingTransport();
    private final PacketWriter writer = new PacketWriter(transport, ShardStats.unobserved());

    private static List<Packet> decode(ByteString bytes, ProtocolVersion version) {
        var reader = new PacketReader(Integer.MAX_VALUE, version);
        reader.feed(bytes.asByteBuffer());
        var packets = new ArrayList<Packet>();
        for (Packet p = reader.poll(); p != null; p = reader.poll()) packets.add(p);
        return packets;
    }

    @Test
    void anUncorkedPacketIsWrittenAtOnce() {
        writer.accept(new PubAck(7));
        byte[] pubAck = {0x40, 2, 0, 7};  // PUBACK, remaining length 2, packet identifier 7
        assertEquals(1, transport.writes.size());
        assertArrayEquals(pubAck, transport.writes.get(0).toArray());
    }

    @Test
    void corkedPacketsGoOutAsOneWriteInOrder() {
        writer.cork();
        writer.accept(new PubAck(1));
        writer.accept(PingResp.INSTANCE);
        writer.accept(new PubAck(2));
        assertTrue(transport.writes.isEmpty(), "nothing reaches the socket while corked");
        writer.uncork();
        assertEquals(1, transport.writes.size());
        assertEquals(List.of(new PubAck(1), PingResp.INSTANCE, new PubAck(2)),
                decode(transport.writes.get(0), ProtocolVersion.MQTT_3_1_1));
    }

    @Test
    void uncorkingWithNothingWrittenWritesNothing() {
        writer.cork();
        writer.uncork();
        assertTrue(transport.writes.isEmpty());
    }

    @Test
    void theBacklogCountsCorkedBytesAndTheTransportsBuffer() {
        transport.buffered = 100;
        writer.cork();
        writer.accept(new PubAck(1));
        assertEquals(104, writer.backlog());
    }

    @Test
    void closingFlushesCorkedPacketsFirst() {  // a DISCONNECT written before close must reach the client
        writer.cork();
        writer.accept(new PubAck(1));
        writer.close();
        assertEquals(1, transport.writes.size());
        assertTrue(transport.closed);
    }

    @Test
    void aLargePayloadIsSharedNotCopiedIntoTheEncodedPublish() {
        var large = new Publish("t", Binary.wrap(new byte[PacketWriter.SHARED_PAYLOAD]), QoS.AT_LEAST_ONCE, false, false, 1, Properties.NONE);
        var small = Publish.atMostOnce("t", Binary.wrap(new byte[PacketWriter.SHARED_PAYLOAD - 1]), false);
        writer.accept(large);
        writer.accept(small);
        var largeWrite = transport.writes.get(0);
        assertEquals(2, fragments(largeWrite), "the encoded head, then the payload as it is");
        assertEquals(List.of(large), decode(largeWrite, ProtocolVersion.MQTT_3_1_1));
        assertEquals(1, fragments(transport.writes.get(1)), "a small one is copied in");
        assertEquals(List.of(small), decode(transport.writes.get(1), ProtocolVersion.MQTT_3_1_1));
    }

    private static int fragments(ByteString bytes) {
        int count = 0;
        for (var ignored : bytes.getByteBuffers()) count++;
        return count;
    }

    @Test
    void packetsAreEncodedForTheConnectionsVersion() {  // 3.1.1 PUBACK has no reason code (3.4.2 in 3.1.1)
        var refused = new PubAck(3, ReasonCode.NOT_AUTHORIZED, Properties.NONE);
        writer.accept(refused);
        writer.version(ProtocolVersion.MQTT_5);
        writer.accept(refused);
        assertArrayEquals(new byte[] {0x40, 2, 0, 3}, transport.writes.get(0).toArray(), "3.1.1 until CONNECT says otherwise");
        assertEquals(List.of(refused), decode(transport.writes.get(1), ProtocolVersion.MQTT_5));
    }
}
