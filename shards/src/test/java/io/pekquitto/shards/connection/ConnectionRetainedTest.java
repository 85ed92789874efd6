package io.pekquitto.shards.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.auth.Security;
import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.ConnAck;
import io.pekquitto.protocol.Connect;
import io.pekquitto.protocol.Packet;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.Publish;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.protocol.SubAck;
import io.pekquitto.protocol.codec.PacketEncoder;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.settings.BrokerSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The retained messages a SUBSCRIBE brings go out after its SUBACK as the client's socket takes them,
 * and none is dropped, however many: not for the socket's backlog, which drops live QoS 0 past 1 MiB,
 * nor for the memory budget. The shard is a probe; the socket is a {@link FakeTransport}.
 */
class ConnectionRetainedTest {
    private static final ProtocolVersion VERSION = ProtocolVersion.MQTT_5;
    private static final int RETAINED = 20_000;
    /** About 100 bytes a PUBLISH: 20,000 of them are about 2 MB, twice the QoS 0 backlog limit. */
    private static final Binary PAYLOAD = Binary.utf8("x".repeat(80));

    private final ActorTestKit testKit = ActorTestKit.create();
    private final TestProbe<ShardRequest> shard = testKit.createTestProbe();
    private final FakeTransport transport = new FakeTransport();
    private ConnectionRef connection;

    @BeforeEach
    void connect() {
        var settings = BrokerSettings.parse("parking.enabled = false");
        var environment = ShardEnvironment.of(settings, Security.OPEN, System::nanoTime, false);
        connection = TestConnections.accepted(testKit, environment, shard.getRef(), TestConnections.ANY_LISTENER, transport);
        transport.connection = connection;
        connection.tell(new Connection.BytesReceived(ByteString.fromByteBuffer(PacketEncoder.encode(new Connect(VERSION, "c",
                true, 0, Optional.empty(), Optional.empty(), Optional.empty(), Properties.NONE), VERSION))));
        shard.expectMessageClass(ShardRequest.Attach.class);
        connection.tell(new Connection.Attached(false, new Session("c", 100, false)));
        assertInstanceOf(ConnAck.class, transport.awaitPackets(testKit, VERSION, 1).get(0));
    }

    @AfterEach
    void stop() {
        testKit.shutdownTestKit();
    }

    private static List<Message> retained(int count) {
        var messages = new ArrayList<Message>(count);
        long now = System.nanoTime();
        for (int n = 0; n < count; n++) {
            messages.add(Message.received("prefix/" + n, PAYLOAD, QoS.AT_MOST_ONCE, true, Properties.NONE, now));
        }
        return messages;
    }

    private void subscribed(List<Message> retained) {
        connection.tell(new Connection.Subscribed(1, List.of(ReasonCode.GRANTED_QOS_0), retained));
    }

    private static List<String> publishedTopics(List<Packet> packets) {
        return packets.stream().filter(Publish.class::isInstance).map(p -> ((Publish) p).topic()).toList();
    }

    /** Waits (up to 3 s) until {@code count} PUBLISHes are written; returns every packet. */
    private List<Packet> awaitPublishes(int count) {
        return testKit.createTestProbe().awaitAssert(Duration.ofSeconds(3), Duration.ofMillis(10), () -> {
            var packets = transport.packets(VERSION);
            assertEquals(count, publishedTopics(packets).size(), "PUBLISHes written");
            return packets;
        });
    }

    @Test
    void everyRetainedMessageOfASubscribeArrivesInOrderAfterItsSubAck() {
        subscribed(retained(RETAINED));
        var packets = awaitPublishes(RETAINED);
        assertInstanceOf(SubAck.class, packets.get(1));
        var topics = publishedTopics(packets);
        for (int n = 0; n < RETAINED; n++) assertEquals("prefix/" + n, topics.get(n));
        assertTrue(((Publish) packets.get(2)).retain());
    }

    @Test
    void theyArePacedByTheSocketNeverMoreThanAboutPaceBytesWaiting() {
        transport.holding = true;  // the socket takes nothing until the test says so
        subscribed(retained(RETAINED));
        testKit.createTestProbe().awaitAssert(Duration.ofSeconds(3), () -> {
            assertEquals(1, transport.takenAsked.get(), "asked to hear when the socket took the first part");
            return null;
        });
        int first = publishedTopics(transport.packets(VERSION)).size();
        assertTrue(first > 0 && first < RETAINED / 4, "about PACE bytes' worth, not all: " + first);
        assertTrue(transport.bufferedBytes() <= Deliveries.PACE + 200, "buffered " + transport.bufferedBytes());

        transport.take();
        connection.tell(Connection.WritesTaken.INSTANCE);
        testKit.createTestProbe().awaitAssert(Duration.ofSeconds(3), () -> {
            assertEquals(2, transport.takenAsked.get(), "the next part, then asked again");
            return null;
        });
        assertTrue(publishedTopics(transport.packets(VERSION)).size() > first);

        transport.holding = false;
        transport.take();
        connection.tell(Connection.WritesTaken.INSTANCE);
        awaitPublishes(RETAINED);  // none dropped
    }
}
