package io.pekquitto.e2e.limits;

import static io.pekquitto.e2e.RawClient.CONNACK;
import static io.pekquitto.e2e.RawClient.PUBACK;
import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.PUBREC;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V311;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Bytes;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import java.time.Duration;
import java.util.ArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Server-side limits of issue 4 over raw sockets: Receive Maximum towards the server
 * ({@code receive-maximum-policy}), the Payload Format Indicator check, problem information on error
 * acknowledgements, and {@code max-queued-bytes}.
 */
@Timeout(30)
class LimitsIT {
    private static final byte[] NOT_UTF8 = {(byte) 0xC3, 0x28};  // a lead byte followed by a non-continuation byte
    private static final byte[] PAYLOAD_IS_UTF8 = {0x01, 0x01};    // Payload Format Indicator = 1 (3.3.2.3.2)

    /** A broker per test: some tests need settings of their own, and each fills its broker's queues. */
    @RegisterExtension
    final BrokerExtension broker = BrokerExtension.inProcess();

    /** Sends receive-maximum + 1 QoS 2 PUBLISHes without ever sending PUBREL. */
    private static void exceedReceiveMaximum(RawClient client, int version, int receiveMaximum) throws Exception {
        for (int id = 1; id <= receiveMaximum + 1; id++) client.send(RawClient.publish(version, "limits/rm", 2, id, "m" + id));
    }

    @Test
    @DisplayName("[MQTT-3.3.4-9] 5.0: more unacknowledged QoS 2 PUBLISHes than Receive Maximum gets DISCONNECT 0x93")
    void receiveMaximumExceededIsDisconnectedWhenStrict() throws Exception {
        try (var client = broker.raw(Connect.of(V5, Names.clientId("rm")))) {
            exceedReceiveMaximum(client, V5, 20);
            for (int i = 0; i < 20; i++) client.expect(PUBREC);
            client.expectDisconnect(0x93, Duration.ofSeconds(5));
        }
    }

    @Test
    @DisplayName("receive-maximum-policy = lenient: the same client keeps its connection and gets every PUBREC")
    @BrokerExtension.Overrides("receive-maximum-policy = lenient")
    void receiveMaximumExceededIsToleratedWhenLenient() throws Exception {
        try (var client = broker.raw(Connect.of(V5, Names.clientId("rm")))) {
            exceedReceiveMaximum(client, V5, 20);
            for (int i = 0; i < 21; i++) client.expect(PUBREC);
            client.send(RawClient.pingReq());
            client.expect(RawClient.PINGRESP);
        }
    }

    @Test
    @DisplayName("3.1.1 clients are never told a Receive Maximum, so they are not disconnected for one")
    void a311ClientIsNotHeldToAReceiveMaximum() throws Exception {
        try (var client = broker.raw(Connect.of(V311, Names.clientId("rm")))) {
            exceedReceiveMaximum(client, V311, 20);
            for (int i = 0; i < 21; i++) client.expect(PUBREC);
        }
    }

    @Test
    @DisplayName("3.3.2.3.2: a QoS 1 PUBLISH announced as UTF-8 with a non-UTF-8 payload gets PUBACK 0x99 and is not delivered")
    void invalidUtf8PayloadIsRefusedWithPayloadFormatInvalid() throws Exception {
        try (var subscriber = broker.raw(Connect.of(V5, Names.clientId("sub")));
             var publisher = broker.raw(Connect.of(V5, Names.clientId("pub")))) {
            subscriber.send(RawClient.subscribe(V5, 1, new Filter("limits/pfi", 1)));
            subscriber.expect(SUBACK);
            publisher.send(RawClient.publish(V5, "limits/pfi", 1, false, 7, PAYLOAD_IS_UTF8, NOT_UTF8));
            var ack = publisher.expect(PUBACK);
            assertEquals(0x99, ack.body()[2] & 0xFF, "reason code Payload format invalid");
            assertTrue(new String(ack.body()).contains("UTF-8"), "a reason string, as Request Problem Information is 1");
            // A valid one goes through, so the first was refused, not merely slow.
            publisher.send(RawClient.publish(V5, "limits/pfi", 1, false, 8, PAYLOAD_IS_UTF8, "grüße".getBytes("UTF-8")));
            publisher.expect(PUBACK);
            assertEquals("grüße", subscriber.expect(PUBLISH).publish(V5).payloadText());
        }
    }

    @Test
    @DisplayName("[MQTT-3.1.2-29] Request Problem Information 0: no Reason String on a PUBACK")
    void noReasonStringWhenProblemInformationIsRefused() throws Exception {
        var noProblemInformation = new Bytes().u8(0x17).u8(0).toByteArray();  // Request Problem Information = 0
        try (var publisher = broker.raw(Connect.of(V5, Names.clientId("pub")).withProperties(noProblemInformation))) {
            publisher.send(RawClient.publish(V5, "limits/pfi", 1, false, 7, PAYLOAD_IS_UTF8, NOT_UTF8));
            var ack = publisher.expect(PUBACK);
            assertEquals(0x99, ack.body()[2] & 0xFF);
            // Packet id and reason code, then no property block (3.4.2.2.1 allows leaving it out) or an empty one.
            assertTrue(ack.body().length == 3 || (ack.body().length == 4 && ack.body()[3] == 0),
                    "no Reason String: " + ack);
        }
    }

    @Test
    @DisplayName("3.3.2.3.2: a QoS 0 PUBLISH announced as UTF-8 that is not gets DISCONNECT 0x99")
    void invalidUtf8AtQos0Disconnects() throws Exception {
        try (var publisher = broker.raw(Connect.of(V5, Names.clientId("pub")))) {
            publisher.send(RawClient.publish(V5, "limits/pfi", 0, false, 0, PAYLOAD_IS_UTF8, NOT_UTF8));
            publisher.expectDisconnect(0x99, Duration.ofSeconds(5));
        }
    }

    @Test
    @DisplayName("max-queued-bytes: an offline session keeps payloads up to the limit and drops the rest")
    @BrokerExtension.Overrides("max-queued-bytes = 10")
    void maxQueuedBytesLimitsTheOfflineQueue() throws Exception {
        var expiry = new Bytes().u8(0x11).u32(300).toByteArray();  // Session Expiry Interval 300 s
        String clientId = Names.clientId("bytes");
        var subscriber = broker.raw(Connect.of(V5, clientId).withCleanStart(false).withProperties(expiry));
        subscriber.send(RawClient.subscribe(V5, 1, new Filter("limits/bytes", 1)));
        subscriber.expect(SUBACK);
        subscriber.send(RawClient.disconnect(V5, 0));
        subscriber.expectClosed(Duration.ofSeconds(5));
        try (var publisher = broker.raw(Connect.of(V5, Names.clientId("pub")))) {
            for (int id = 1; id <= 3; id++) {
                publisher.send(RawClient.publish(V5, "limits/bytes", 1, id, "abcd"));  // 4 bytes each
                publisher.expect(PUBACK);
            }
        }
        try (var back = broker.raw()) {
            back.send(Connect.of(V5, clientId).withCleanStart(false).withProperties(expiry).bytes());
            assertTrue(back.expect(CONNACK).sessionPresent());
            var received = new ArrayList<String>();
            for (int i = 0; i < 2; i++) {
                var publish = back.expect(PUBLISH).publish(V5);
                received.add(publish.payloadText());
                back.send(RawClient.ack(PUBACK, publish.packetId()));
            }
            assertEquals(2, received.size());
            back.expectSilence(Duration.ofMillis(500));  // the third (12 bytes > 10) was dropped
        }
    }

    @Test
    @DisplayName("[MQTT-3.1.2-25] a queued PUBLISH over the client's Maximum Packet Size is discarded and frees its slot")
    void aQueuedPublishOverTheClientsMaximumIsDiscarded() throws Exception {
        var limits = new Bytes()
                .u8(0x21).u16(1)        // Receive Maximum 1: the second message has to queue
                .u8(0x27).u32(100)      // Maximum Packet Size 100
                .toByteArray();
        try (var subscriber = broker.raw(Connect.of(V5, Names.clientId("sub")).withProperties(limits));
             var publisher = broker.raw(Connect.of(V5, Names.clientId("pub")))) {
            subscriber.send(RawClient.subscribe(V5, 1, new Filter("limits/size", 1)));
            subscriber.expect(SUBACK);
            publisher.send(RawClient.publish(V5, "limits/size", 1, 1, "first"));
            publisher.send(RawClient.publish(V5, "limits/size", 1, 2, "x".repeat(200)));  // over 100 bytes
            publisher.send(RawClient.publish(V5, "limits/size", 1, 3, "third"));
            for (int i = 0; i < 3; i++) publisher.expect(PUBACK);
            var first = subscriber.expect(PUBLISH).publish(V5);
            assertEquals("first", first.payloadText());
            subscriber.send(RawClient.ack(PUBACK, first.packetId()));  // frees the one slot
            var next = subscriber.expect(PUBLISH).publish(V5);
            assertEquals("third", next.payloadText(), "the oversized one is skipped, not sent");
        }
    }
}
