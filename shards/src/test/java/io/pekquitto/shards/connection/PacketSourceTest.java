package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.PingReq;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.codec.PacketReader;
import java.util.Arrays;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.Test;

class PacketSourceTest {
    private static final byte[] CONNECT_V5 = {
        0x10, 14,                    // fixed header: CONNECT; remaining length
        0, 4, 'M', 'Q', 'T', 'T',    // protocol name
        5,                           // protocol level: 5.0
        0x02,                        // connect flags: Clean Start
        0, 60,                       // Keep Alive 60 s
        0,                           // property length 0
        0, 1, 'c' };                 // client identifier "c"
    private static final byte[] PINGREQ = {(byte) 0xC0, 0};

    /** Counts the demand for more bytes. */
    private static final class CountingTransport implements Transport {
        int readMore;

        @Override public void write(ByteString bytes) {}
        @Override public void readMore() { readMore++; }
        @Override public void close() {}
        @Override public long bufferedBytes() { return 0; }
        @Override public java.net.InetSocketAddress remoteAddress() { return TestConnections.CLIENT.address(); }
        @Override public void tellWhenTaken() {}
    }

    private final CountingTransport transport = new CountingTransport();
    private final PacketSource source = new PacketSource(PacketReader.forServer(1024, 1024), transport, new PartialPacketBudget(1 << 20));

    private static ByteString bytes(byte[]... parts) {
        var all = ByteString.emptyByteString();
        for (var part : parts) all = all.concat(ByteString.fromArray(part));
        return all;
    }

    @Test
    void theVersionIsLearnedFromConnect() {  // 3.1.2.2
        assertEquals(ProtocolVersion.MQTT_3_1_1, source.version(), "3.1.1 rules until CONNECT");
        source.feed(bytes(CONNECT_V5));
        var connect = assertInstanceOf(Connect.class, source.poll());
        assertEquals("c", connect.clientId());
        assertEquals(ProtocolVersion.MQTT_5, source.version());
    }

    @Test
    void aPacketSplitAcrossChunksIsReadWhenComplete() {
        source.feed(bytes(Arrays.copyOfRange(CONNECT_V5, 0, 7)));
        assertNull(source.poll(), "more bytes are needed");
        source.feed(bytes(Arrays.copyOfRange(CONNECT_V5, 7, CONNECT_V5.length), PINGREQ));
        assertInstanceOf(Connect.class, source.poll());
        assertEquals(PingReq.INSTANCE, source.poll());
        assertNull(source.poll());
    }

    @Test
    void aFirstPacketOtherThanConnectIsRefused() {  // [MQTT-3.1.0-1]
        source.feed(bytes(PINGREQ));
        assertThrows(MalformedPacketException.class, source::poll);
    }

    @Test
    void theNextChunkIsAskedForAtOnceWhenNothingWasRouted() {
        assertFalse(source.readMoreUnlessRouted());
        assertEquals(1, transport.readMore);
    }

    @Test
    void afterRoutingTheShardAsksForTheNextChunk() {  // a publisher never runs ahead of its shard
        source.routed();
        assertTrue(source.readMoreUnlessRouted(), "the shard must ask, once it has routed this chunk's messages");
        assertEquals(0, transport.readMore);
        assertFalse(source.readMoreUnlessRouted(), "the next chunk without routes reads on at once");
        assertEquals(1, transport.readMore);
    }

    /** Half of a CONNECT announcing a 1,000-byte body: the reader holds what has come of it. */
    private static byte[] halfOfALargeConnect() {
        var bytes = new byte[503];
        bytes[0] = 0x10;
        bytes[1] = (byte) (1000 & 0x7F | 0x80);  // Remaining Length 1000, two bytes
        bytes[2] = (byte) (1000 >> 7);
        return bytes;
    }

    @Test
    void partialPacketsPastTheShardsBudgetAreRefusedWithQuotaExceeded() {
        var budget = new PartialPacketBudget(800);
        var first = new PacketSource(PacketReader.forServer(4096, 4096), transport, budget);
        var second = new PacketSource(PacketReader.forServer(4096, 4096), transport, budget);
        first.feed(bytes(halfOfALargeConnect()));
        assertNull(first.poll(), "within the budget: waits for the rest");
        assertTrue(budget.held() >= 500, "the partial body is counted: " + budget.held());
        second.feed(bytes(halfOfALargeConnect()));
        var refused = assertThrows(MalformedPacketException.class, second::poll, "the second one takes the shard past 800 bytes");
        assertEquals(ReasonCode.QUOTA_EXCEEDED, refused.reason());
        second.release();
        first.release();
        assertEquals(0, budget.held(), "closed connections hold nothing");
    }

    @Test
    void aConnectionWhosePartialPacketCompletesGivesItsShareBack() {
        var budget = new PartialPacketBudget(1 << 20);
        var source = new PacketSource(PacketReader.forServer(1024, 1024), transport, budget);
        source.feed(bytes(Arrays.copyOfRange(CONNECT_V5, 0, 10)));
        assertNull(source.poll());
        source.feed(bytes(Arrays.copyOfRange(CONNECT_V5, 10, CONNECT_V5.length)));
        assertInstanceOf(Connect.class, source.poll());
        assertNull(source.poll());
        assertEquals(0, budget.held());
    }
}
