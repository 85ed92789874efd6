package io.pekquitto.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.PubAck;
import io.pekquitto.protocol.PubRel;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.Subscribe;
import io.pekquitto.protocol.codec.PacketReader;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The tool's hand-made packets, read back by the broker's codec: two independent encoders agree. */
class MqttTest {

    private static Packet decode(byte[] bytes, ProtocolVersion version) {
        var reader = new PacketReader(1 << 20, version);
        reader.feed(ByteBuffer.wrap(bytes));
        var packet = reader.poll();
        assertEquals(null, reader.poll(), "exactly one packet");
        return packet;
    }

    @Test
    void connectIsExactly311Bytes() {
        byte[] expected = {
            0x10, 14,                  // CONNECT, remaining length
            0, 4, 'M', 'Q', 'T', 'T',  // protocol name
            4,                         // level 4: 3.1.1
            0x02,                      // flags: clean session
            0, 60,                     // keep-alive
            0, 2, 'c', '1' };          // client id
        assertArrayEquals(expected, Mqtt.connect("c1", 60, true, false));
    }

    @Test
    void connectDecodesInBothVersions() {
        for (var v5 : new boolean[] {false, true}) {
            var version = v5 ? ProtocolVersion.MQTT_5 : ProtocolVersion.MQTT_3_1_1;
            var connect = assertInstanceOf(Connect.class, decode(Mqtt.connect("bench-x-p1", 30, true, v5), version));
            assertEquals(version, connect.version());
            assertEquals("bench-x-p1", connect.clientId());
            assertEquals(30, connect.keepAlive());
            assertTrue(connect.cleanStart());
        }
    }

    @Test
    void subscribeDecodes() {
        for (var v5 : new boolean[] {false, true}) {
            var version = v5 ? ProtocolVersion.MQTT_5 : ProtocolVersion.MQTT_3_1_1;
            var subscribe = assertInstanceOf(Subscribe.class, decode(Mqtt.subscribe(7, "bench/a/+", 2, v5), version));
            assertEquals(7, subscribe.packetId());
            assertEquals("bench/a/+", subscribe.subscriptions().get(0).topicFilter());
            assertEquals(QoS.EXACTLY_ONCE, subscribe.subscriptions().get(0).options().maximumQos());
        }
    }

    @Test
    void publishTemplatePatchesPacketIdAndSequenceInPlace() {
        for (var v5 : new boolean[] {false, true}) {
            for (int qos = 0; qos <= 2; qos++) {
                var version = v5 ? ProtocolVersion.MQTT_5 : ProtocolVersion.MQTT_3_1_1;
                var template = new Mqtt.PublishTemplate("bench/r/3", qos, 32, v5);
                var out = ByteBuffer.allocate(2 * template.size());
                template.writeTo(out, 513, 3, 1L << 33);
                var second = out.position();
                template.writeTo(out, 514, 3, 42);
                var first = new byte[second];
                out.flip().get(first);

                var publish = assertInstanceOf(Publish.class, decode(first, version));
                assertEquals("bench/r/3", publish.topic());
                assertEquals(qos, publish.qos().ordinal());
                assertEquals(qos == 0 ? 0 : 513, publish.packetId());
                assertFalse(publish.retain());
                var payload = ByteBuffer.wrap(publish.payload().toByteArray());
                assertEquals(32, payload.remaining());
                assertEquals(3, payload.getInt());
                assertEquals(1L << 33, payload.getLong());

                // The tool's own reader finds the payload at the same place.
                var frame = ByteBuffer.wrap(first);
                int bodyOffset = 2;
                int at = Mqtt.publishPayloadOffset(frame, bodyOffset, qos, v5);
                assertEquals(1L << 33, frame.getLong(at + 4));
            }
        }
    }

    @Test
    void acknowledgementsDecode() {
        var out = ByteBuffer.allocate(8);
        Mqtt.putAck(out, Mqtt.PUBACK, 65_535);
        Mqtt.putAck(out, Mqtt.PUBREL, 9);
        var bytes = out.array();
        var reader = new PacketReader(1 << 20, ProtocolVersion.MQTT_3_1_1);
        reader.feed(ByteBuffer.wrap(bytes));
        assertEquals(65_535, assertInstanceOf(PubAck.class, reader.poll()).packetId());
        assertEquals(9, assertInstanceOf(PubRel.class, reader.poll()).packetId()); // flags 0010 [MQTT-3.6.1-1]
    }

    @Test
    void remainingLengthBoundaries() {
        int[] lengths = {0, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152, Mqtt.MAX_REMAINING_LENGTH};
        int[] sizes = {1, 1, 2, 2, 3, 3, 4, 4};
        for (int i = 0; i < lengths.length; i++) {
            var out = ByteBuffer.allocate(4);
            assertEquals(sizes[i], Mqtt.putRemainingLength(out, lengths[i]));
            assertEquals(sizes[i], Mqtt.remainingLengthSize(lengths[i]));
        }
        assertThrows(IllegalArgumentException.class, () -> Mqtt.putRemainingLength(ByteBuffer.allocate(8), Mqtt.MAX_REMAINING_LENGTH + 1));
    }

    @Test
    void payloadTooSmallForTheSequenceIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Mqtt.PublishTemplate("t", 1, 11, false));
    }
}
