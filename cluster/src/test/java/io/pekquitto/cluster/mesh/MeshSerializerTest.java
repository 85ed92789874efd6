package io.pekquitto.cluster.mesh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.pekquitto.cluster.ClusterConfig;
import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.mesh.Forwarded;
import io.pekquitto.shards.node.MeshPeers;
import io.pekquitto.shards.node.NodeMesh;
import io.pekquitto.shards.routes.RouteChange;
import io.pekquitto.shards.routes.SharedGroups;
import io.pekquitto.shards.session.Availability;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.MigratedSession;
import io.pekquitto.shards.session.PortableSession;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionTransfer;
import io.pekquitto.shards.session.SubscriptionEntry;
import io.pekquitto.shards.shard.ShardCommand;
import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.serialization.DisabledJavaSerializer;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Through Pekko itself, configured as a node is ({@link ClusterConfig#serialization()}), with every message
 * sent serialized and read back ({@code serialize-messages = on}): Pekko picks {@link MeshSerializer} for
 * the mesh's three messages, and Java serialization stays off.
 */
class MeshSerializerTest {
    private static final ActorTestKit TEST_KIT = ActorTestKit.create("mesh", ClusterConfig.serialization()
            .withFallback(ConfigFactory.parseString("pekko.actor.serialize-messages = on"))
            .withFallback(ConfigFactory.load()));

    private static final Message MESSAGE = new Message("a/é/€", Binary.utf8("payload"), QoS.EXACTLY_ONCE, true,
            Properties.builder().set(PropertyId.CONTENT_TYPE, "text/plain").set(PropertyId.MESSAGE_EXPIRY_INTERVAL, 60L)
                    .set(PropertyId.CORRELATION_DATA, Binary.utf8("42")).addUserProperty("k", "v").build(),
            "", System.nanoTime() + 60_000_000_000L, System.nanoTime());
    private static final List<Object> MESSAGES = List.of(
            new ShardCommand.Forward(1, List.of(new Forwarded.Published("p", MESSAGE), new Forwarded.ToClient("c", MESSAGE))),
            new ShardCommand.ForwardAck(2, false),
            new ShardCommand.Control(3, new ControlMessage.Routes(new RouteChange.InterestAdded("a/+"))),
            new ShardCommand.Control(4, new ControlMessage.Sessions(new SessionTransfer.Handover("c1", 1, Optional.of(
                    new PortableSession("c1", new PortableSession.Limits(10, 0, true), List.of(), List.of(), Set.of(3), 0,
                            Map.of("a/#", new SubscriptionEntry(SubscriptionOptions.of(QoS.EXACTLY_ONCE), 0)),
                            Session.NEVER_EXPIRES, Optional.empty(), Optional.empty()))))));

    @AfterAll
    static void stop() {
        TEST_KIT.shutdownTestKit();
    }

    @Test
    void pekkoPicksTheMeshSerializerForTheMeshsMessages() {
        var serialization = SerializationExtension.get(TEST_KIT.system());
        for (var message : MESSAGES) {
            var serializer = serialization.findSerializerFor(message);
            assertInstanceOf(MeshSerializer.class, serializer, message.getClass().getName());
            assertEquals(MeshSerializer.IDENTIFIER, serializer.identifier());
            var bytes = serialization.serialize(message).get();
            var back = serialization.deserialize(bytes, MeshSerializer.IDENTIFIER, MeshCodec.manifest(message)).get();
            assertEquals(MeshMessages.comparable(message), MeshMessages.comparable(withoutTimes(back, message)));
        }
    }

    @Test
    void aMessageToAnActorIsSerializedByPekkoAndArrivesEqual() {
        var probe = TEST_KIT.<ShardCommand>createTestProbe();
        for (var message : MESSAGES) {
            probe.ref().tell((ShardCommand) message);
            var received = probe.receiveMessage(Duration.ofSeconds(5));
            assertNotSame(message, received, "serialize-messages: what arrives was read from bytes");
            assertEquals(MeshMessages.comparable(message), MeshMessages.comparable(withoutTimes(received, message)));
        }
    }

    @Test
    void aLiveSessionIsNotSentAndJavaSerializationIsOff() {
        var serialization = SerializationExtension.get(TEST_KIT.system());
        var session = new MigratedSession(new Session("c1", 10, false), Map.of(), 60, 0, Optional.empty(), false);
        var handover = new ShardCommand.Control(0, new ControlMessage.Sessions(new SessionTransfer.Handover("c1", 1, Optional.of(session))));
        var refused = serialization.serialize(handover).failed().get();
        assertTrue(refused.getMessage().contains(MeshCodec.LIVE_SESSION), refused.getMessage());

        record Plain(String value) implements Serializable {}
        assertInstanceOf(DisabledJavaSerializer.class, serialization.findSerializerFor(new Plain("x")));
        assertThrows(Exception.class, () -> serialization.serialize(new Plain("x")).get());
    }

    /**
     * The message read back, its times put back to the sent ones: on one clock they moved by the time the
     * round trip took (MeshCodecProperties checks the times to the nanosecond); checked here to the second.
     */
    private static Object withoutTimes(Object back, Object sent) {
        if (!(back instanceof ShardCommand.Forward forward)) return back;
        var original = (ShardCommand.Forward) sent;
        long shift = 0;
        for (int i = 0; i < forward.items().size(); i++) {
            var read = Forwarded.messageOf(forward.items().get(i));
            if (read == null) continue;  // a marker of a session crossing
            long moved = read.receivedAt() - Forwarded.messageOf(original.items().get(i)).receivedAt();
            assertTrue(moved >= 0 && moved < 1_000_000_000L, "moved by " + moved + " ns");
            shift = moved;
        }
        return MeshMessages.shifted(back, -shift);
    }

    /** The bytes another node at {@code node} sends: its address, then the codec's. */
    private static byte[] fromNode(String node, Object message) {
        var address = node.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        var body = new MeshCodec(System::nanoTime).encode(message);
        return java.nio.ByteBuffer.allocate(2 + address.length + body.length).putShort((short) address.length)
                .put(address).put(body).array();
    }

    @Test
    void theShardsOfTheSendingNodeAreNumberedAsThisNodeNumbersThem() throws Exception {
        var peers = new MeshPeers(2, TEST_KIT.system().address().hostPort(), true);
        NodeMesh.get(TEST_KIT.system()).publish(peers);
        var serialization = SerializationExtension.get(TEST_KIT.system());
        var serializer = (MeshSerializer) serialization.serializerByIdentity().apply(MeshSerializer.IDENTIFIER);
        var entry = new SubscriptionEntry(SubscriptionOptions.of(QoS.AT_LEAST_ONCE), 0);
        var joined = new ShardCommand.Control(1, new ControlMessage.Routes(new RouteChange.Joined("g", "jobs/#",
                new SharedGroups.Member("worker", 1, entry, Availability.READY))));
        var other = "pekquitto@10.0.0.9:25520";

        var read = (ShardCommand.Control) serializer.fromBinary(fromNode(other, joined), MeshCodec.CONTROL);
        int numbered = peers.remoteId(other, 1);
        assertEquals(2, numbered, "the first remote shard this node numbers");
        assertEquals(numbered, read.from());
        var member = ((RouteChange.Joined) ((ControlMessage.Routes) read.message()).change()).member();
        assertEquals(numbered, member.shard(), "a member on the sender's shard is on that shard here");

        var ack = (ShardCommand.ForwardAck) serializer.fromBinary(fromNode(other, new ShardCommand.ForwardAck(0, true)), MeshCodec.FORWARD_ACK);
        assertEquals(peers.remoteId(other, 0), ack.from());
        var mine = (ShardCommand.ForwardAck) serialization.deserialize(serialization.serialize(new ShardCommand.ForwardAck(1, true)).get(),
                MeshSerializer.IDENTIFIER, MeshCodec.FORWARD_ACK).get();
        assertEquals(1, mine.from(), "this node's own shards keep their index");
        assertThrows(MeshFormatException.class, () -> serializer.fromBinary(new byte[] {0, 9, 'x'}, MeshCodec.FORWARD_ACK));
    }
}
