package io.pekquitto.protocol.codec;

import static io.pekquitto.protocol.codec.Vectors.V3;
import static io.pekquitto.protocol.codec.Vectors.V5;
import static io.pekquitto.protocol.codec.Vectors.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Auth;
import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Disconnect;
import io.pekquitto.protocol.MalformedPacketException;
import io.pekquitto.protocol.PingReq;
import io.pekquitto.protocol.PingResp;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.Subscribe;
import io.pekquitto.protocol.Subscription;
import io.pekquitto.protocol.SubscriptionOptions;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
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

    private static final int[] CONNECT_V3 = {
        0x10, 12,                   // CONNECT, remaining length
        0, 4, 'M', 'Q', 'T', 'T',   // protocol name
        4,                          // level 4: 3.1.1
        0x02,                       // connect flags: clean session
        0, 60,                      // keep alive
        0, 0 };                     // empty client id

    @Test
    void versionIsLearnedFromConnect() {
        var reader = new PacketReader(1000);
        assertEquals(V3, reader.version());
        reader.feed(ByteBuffer.wrap(bytes(CONNECT_V5)));
        reader.poll();
        assertEquals(V5, reader.version());
        reader.feed(ByteBuffer.wrap(bytes(0xE0, 1, 0x8E)));  // DISCONNECT with a reason: 5.0 only
        assertEquals(new Disconnect(ReasonCode.SESSION_TAKEN_OVER, Properties.NONE), reader.poll());
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

    // ---- the server side of a connection

    private static PacketReader serverAfter(int[] connect) {
        var reader = PacketReader.forServer(Vectors.PROTOCOL_MAXIMUM_PACKET_SIZE, Vectors.PROTOCOL_MAXIMUM_PACKET_SIZE);
        reader.feed(ByteBuffer.wrap(bytes(connect)));
        assertTrue(reader.poll() instanceof Connect);
        return reader;
    }

    private static void assertRefusedAtOnce(ReasonCode reason, PacketReader reader, int... fed) {
        reader.feed(ByteBuffer.wrap(bytes(fed)));
        var e = assertThrows(MalformedPacketException.class, reader::poll);
        assertEquals(reason, e.reason(), e.getMessage());
    }

    @Test
    void serverRefusesPacketsOnlyServersSend() {
        assertRefusedAtOnce(ReasonCode.PROTOCOL_ERROR, serverAfter(CONNECT_V5), 0x20);  // CONNACK
        assertRefusedAtOnce(ReasonCode.PROTOCOL_ERROR, serverAfter(CONNECT_V5), 0x90);  // SUBACK
        assertRefusedAtOnce(ReasonCode.PROTOCOL_ERROR, serverAfter(CONNECT_V3), 0xB0);  // UNSUBACK
        assertRefusedAtOnce(ReasonCode.PROTOCOL_ERROR, serverAfter(CONNECT_V3),
                0xD0, 0xFF, 0xFF, 0xFF, 0x7F);                                           // PINGRESP, 256 MiB - 1 announced
    }

    @Test
    void serverRefusesAFirstPacketOtherThanConnectBeforeItsBody() {
        // [MQTT-3.1.0-1] the first packet from the client must be CONNECT
        var reader = PacketReader.forServer(Vectors.PROTOCOL_MAXIMUM_PACKET_SIZE, Vectors.PROTOCOL_MAXIMUM_PACKET_SIZE);
        assertRefusedAtOnce(ReasonCode.PROTOCOL_ERROR, reader,
                0x30, 0x80, 0x80, 0x80, 0x64);  // PUBLISH QoS 0, remaining length 209,715,200 (200 MiB)
        assertRefusedAtOnce(ReasonCode.PROTOCOL_ERROR, PacketReader.forServer(100, 100), 0xC0);  // PINGREQ
        assertRefusedAtOnce(ReasonCode.PROTOCOL_ERROR, PacketReader.forServer(100, 100), 0xF0);  // AUTH
    }

    @Test
    void serverRefusesAConnectAboveThePreAuthenticationLimitBeforeItsBody() {
        // A client not yet authenticated cannot make the server buffer more than the CONNECT limit.
        assertRefusedAtOnce(ReasonCode.PACKET_TOO_LARGE, PacketReader.forServer(1_000_000, 100),
                0x10, 0x80, 0x01);  // CONNECT, remaining length 128: 131 bytes, over 100
        var reader = PacketReader.forServer(1_000, 15);  // CONNECT_V5 is 15 bytes: within the limit
        reader.feed(ByteBuffer.wrap(bytes(CONNECT_V5)));
        assertTrue(reader.poll() instanceof Connect);
        // After the CONNECT only the packet limit applies: a PUBLISH QoS 0 of 203 bytes.
        reader.feed(ByteBuffer.wrap(bytes(0x30, 0xC8, 0x01)));  // remaining length 200
        var body = new int[200];  // topic "t", no properties, the rest payload
        body[1] = 1;
        body[2] = 't';
        reader.feed(ByteBuffer.wrap(bytes(body)));
        assertTrue(reader.poll() instanceof Publish);
    }

    @Test
    void aPayloadSplitAcrossReadsStaysInTheJoinedBodyAndNeverSharesTheFedBytes() {
        var payload = new byte[1_000];
        Arrays.fill(payload, (byte) 7);
        var publish = Publish.atMostOnce("t", Binary.of(payload), false);
        var wire = PacketEncoder.encode(publish, V3).array();
        var reader = serverAfter(CONNECT_V3);
        var first = Arrays.copyOfRange(wire, 0, 300);
        var rest = Arrays.copyOfRange(wire, 300, wire.length);
        reader.feed(ByteBuffer.wrap(first));
        assertNull(reader.poll());
        reader.feed(ByteBuffer.wrap(rest));
        var read = (Publish) reader.poll();
        Arrays.fill(first, (byte) 0);  // the caller reuses its buffers
        Arrays.fill(rest, (byte) 0);
        assertEquals(publish, read);
        assertEquals(3, (int) read.payload().view((array, offset, length) -> offset), "kept after its topic, not copied out");

        var longTopic = Publish.atMostOnce("t".repeat(700), Binary.of(new byte[600]), false);
        var longTopicWire = PacketEncoder.encode(longTopic, V3).array();
        reader.feed(ByteBuffer.wrap(Arrays.copyOfRange(longTopicWire, 0, 800)));
        assertNull(reader.poll());
        reader.feed(ByteBuffer.wrap(Arrays.copyOfRange(longTopicWire, 800, longTopicWire.length)));
        var copied = (Publish) reader.poll();
        assertEquals(longTopic, copied);
        assertEquals(0, (int) copied.payload().view((array, offset, length) -> offset), "less than half the body: copied out");

        var whole = wire.clone();
        reader.feed(ByteBuffer.wrap(whole));
        var inOneRead = (Publish) reader.poll();
        Arrays.fill(whole, (byte) 0);
        assertEquals(publish, inOneRead, "a frame inside the fed bytes has its payload copied out");
    }

    @Test
    void serverRefusesASecondConnectBeforeItsBody() {
        // [MQTT-3.1.0-2] a second CONNECT is a Protocol Error; its announced body is never waited for
        assertRefusedAtOnce(ReasonCode.PROTOCOL_ERROR, serverAfter(CONNECT_V5), 0x10, 0xFF, 0xFF, 0xFF, 0x7F);
        assertRefusedAtOnce(ReasonCode.PROTOCOL_ERROR, serverAfter(CONNECT_V3), 0x10, 0xFF, 0xFF, 0xFF, 0x7F);
    }

    @Test
    void serverReadsAClientsPackets() {
        var reader = serverAfter(CONNECT_V5);
        reader.feed(ByteBuffer.wrap(bytes(
                0xC0, 0,                    // PINGREQ
                0xF0, 0)));                 // AUTH, Success: a 5.0 connection may send it
        assertEquals(PingReq.INSTANCE, reader.poll());
        assertEquals(new Auth(ReasonCode.SUCCESS, Properties.NONE), reader.poll());
    }

    @Test
    void authIsMalformedAtTheFirstByteOfA311Connection() {
        // Packet type 15 is reserved in 3.1.1 (2.2.1, Table 2.1)
        assertRefusedAtOnce(ReasonCode.MALFORMED_PACKET, serverAfter(CONNECT_V3), 0xF0, 0xFF, 0xFF, 0xFF, 0x7F);
    }

    @Test
    void clientSideReadsWhatServersSend() {
        var reader = new PacketReader(100, V5);
        reader.feed(ByteBuffer.wrap(bytes(0xD0, 0)));  // PINGRESP
        assertEquals(PingResp.INSTANCE, reader.poll());
    }

    // ---- array-backed, sliced and read-only buffers decode alike

    private static final int[] PUBLISH_V5_WITH_PROPERTIES = {
        0x32, 31,                           // PUBLISH QoS 1, remaining length
        0, 3, 'a', '/', 'b',                // topic "a/b"
        0, 9,                               // packet identifier
        20,                                 // property length
        0x03, 0, 4, 't', 'e', 'x', 't',     //   Content Type "text"
        0x09, 0, 2, 0xCA, 0xFE,             //   Correlation Data CA FE
        0x26, 0, 1, 'k', 0, 2, 0xC3, 0xA9,  //   User Property k=é
        'h', 0xC3, 0xA9 };                  // payload "hé"

    private static final Publish PUBLISH_V5 = new Publish("a/b", Binary.utf8("hé"), QoS.AT_LEAST_ONCE, false, false, 9,
            Properties.builder().set(PropertyId.CONTENT_TYPE, "text")
                    .set(PropertyId.CORRELATION_DATA, Binary.of(bytes(0xCA, 0xFE))).addUserProperty("k", "é").build());

    private static final int[] SUBSCRIBE_V5 = {
        0x82, 26,                           // SUBSCRIBE, flags 0010, remaining length
        0, 10,                              // packet identifier
        9,                                  // property length
        0x0B, 5,                            //   Subscription Identifier 5
        0x26, 0, 1, 'u', 0, 1, 'v',         //   User Property u=v
        0, 3, 'a', '/', '+', 0x01,          // "a/+", QoS 1
        0, 5, 0xE2, 0x82, 0xAC, '/', '#', 0x02 };  // "€/#", QoS 2

    private static final Subscribe SUBSCRIBE = new Subscribe(10, List.of(
            new Subscription("a/+", SubscriptionOptions.of(QoS.AT_LEAST_ONCE)),
            new Subscription("€/#", SubscriptionOptions.of(QoS.EXACTLY_ONCE))),
            Properties.builder().addSubscriptionIdentifier(5).addUserProperty("u", "v").build());

    @Test
    void packetsDecodeAlikeFromEveryKindOfBuffer() {
        var stream = new ByteArrayOutputStream();
        for (var vector : List.of(ConnectCodecTest.CONNECT_V5_WITH_EVERYTHING, PUBLISH_V5_WITH_PROPERTIES, SUBSCRIBE_V5)) {
            stream.writeBytes(bytes(vector));
        }
        var packets = stream.toByteArray();
        var padded = new byte[7 + packets.length + 5];
        Arrays.fill(padded, (byte) 0xEE);   // bytes around the packets that must not be read
        System.arraycopy(packets, 0, padded, 7, packets.length);
        var sliced = ByteBuffer.wrap(padded, 7, packets.length).slice();
        assertEquals(7, sliced.arrayOffset());

        var kinds = new LinkedHashMap<String, ByteBuffer>();
        kinds.put("wrapped", ByteBuffer.wrap(packets));
        kinds.put("slice at array offset 7", sliced);
        kinds.put("array at position 7", ByteBuffer.wrap(padded, 7, packets.length));
        kinds.put("read-only", ByteBuffer.wrap(packets).asReadOnlyBuffer());
        kinds.forEach((kind, buffer) -> {
            var reader = PacketReader.forServer(1000, 1000);
            reader.feed(buffer);
            assertEquals(ConnectCodecTest.EXPECTED_V5, reader.poll(), kind);
            assertEquals(PUBLISH_V5, reader.poll(), kind);
            assertEquals(SUBSCRIBE, reader.poll(), kind);
            assertNull(reader.poll(), kind);
        });
    }
}
