package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.Vectors.V3;
import static io.pekquitto.protocol.codec.Vectors.V5;
import static io.pekquitto.protocol.codec.Vectors.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.PingReq;
import io.pekquitto.protocol.ReasonCode;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class PacketReaderTest {
    private static final int[] CONNECT_V5 = {
        0x10, 13,                   // CONNECT, remaining length
        0, 4, 'M', 'Q', 'T', 'T',   // protocol name
        5,                          // level 5
        0x02,                       // connect flags: clean start
        0, 60,                      // keep alive
        0,                          // property length
        0, 0 };                     // empty client id

    @Test
    void versionIsLearnedFromConnect() {
        var reader = new PacketReader(1000);
        assertEquals(V3, reader.version());
        reader.feed(ByteBuffer.wrap(bytes(CONNECT_V5)));
        reader.poll();
        assertEquals(V5, reader.version());
        reader.feed(ByteBuffer.wrap(bytes(0xE0, 1, 0x8E)));  // DISCONNECT with a reason: 5.0 only
        assertEquals(new Disconnect(ReasonCode.SESSION_TAKEN_OVER, io.pekquitto.protocol.Properties.NONE), reader.poll());
    }

    @Test
    void versionIsLearnedFromAConnectThatTurnsOutMalformed() {
        var reader = new PacketReader(1000);
        reader.feed(ByteBuffer.wrap(bytes(
                0x10, 13,
                0, 4, 'M', 'Q', 'T', 'T',
                5,
                0x03,                   // connect flags: reserved bit set [MQTT-3.1.2-3]
                0, 60, 0, 0, 0)));
        assertThrows(MalformedPacketException.class, reader::poll);
        assertEquals(V5, reader.version());  // so the CONNACK refusing it is a 5.0 one
    }

    @Test
    void readerStaysFailed() {
        var reader = new PacketReader(1000);
        reader.feed(ByteBuffer.wrap(bytes(0xC1, 0)));  // PINGREQ with flags 0001 [MQTT-2.1.3-1]
        assertThrows(MalformedPacketException.class, reader::poll);
        reader.feed(ByteBuffer.wrap(bytes(0xC0, 0)));
        assertThrows(MalformedPacketException.class, reader::poll);
    }

    @Test
    void partialPacketIsReported() {
        var reader = new PacketReader(1000);
        assertFalse(reader.hasPartialPacket());
        reader.feed(ByteBuffer.wrap(bytes(0xC0)));
        assertNull(reader.poll());
        assertTrue(reader.hasPartialPacket());
        reader.feed(ByteBuffer.wrap(bytes(0)));
        assertEquals(PingReq.INSTANCE, reader.poll());
        assertFalse(reader.hasPartialPacket());
    }

    @Test
    void packetTooLargeIsRefusedWithItsCode() {
        var reader = new PacketReader(10);
        reader.feed(ByteBuffer.wrap(bytes(0x30, 9)));  // 11 bytes announced
        assertEquals(ReasonCode.PACKET_TOO_LARGE, assertThrows(MalformedPacketException.class, reader::poll).reason());
    }
}
