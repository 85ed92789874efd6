package io.pekquitto.cluster.mesh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.Shard;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.mesh.Forwarded;
import io.pekquitto.shards.node.MeshPeers;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.MigratedSession;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionTransfer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MeshCodecTest {
    private final MeshCodec codec = new MeshCodec(() -> 1_000_000_000L);

    @Test
    void aHandoverWithASessionIsRefusedNamingWhatIsNotBuilt() {
        var session = new MigratedSession(new Session("c1", 10, false), Map.of(), 0, 0, Optional.empty(), false);
        var handover = new Shard.Control(2, new ControlMessage.Sessions(new SessionTransfer.Handover("c1", 7, Optional.of(session))));
        var refused = assertThrows(IllegalArgumentException.class, () -> codec.encode(handover));
        assertTrue(refused.getMessage().startsWith("a session moving between nodes is not serializable yet"), refused.getMessage());
        assertTrue(refused.getMessage().contains("c1"), refused.getMessage());
        var empty = new Shard.Control(2, new ControlMessage.Sessions(new SessionTransfer.Handover("c1", 7, Optional.empty())));
        assertEquals(empty, codec.decode(codec.encode(empty), MeshCodec.CONTROL), "a Handover without a session goes");
    }

    @Test
    void theLayoutOfAnAcknowledgementAndAControlMessage() {
        assertArrayEquals(new byte[] {0, 0, 0, 3, 1}, codec.encode(new Shard.ForwardAck(3, true)));
        assertArrayEquals(new byte[] {0, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0, 9}, codec.encode(new Shard.Control(1, new ControlMessage.Sync(9))));
        assertArrayEquals(new byte[] {0, 0, 0, 1, 3, 1, 0, 2, 'a', '/'},
                codec.encode(new Shard.Control(1, new ControlMessage.Routes(new io.pekquitto.shards.routes.RouteChange.InterestAdded("a/")))));
    }

    @Test
    void aMessagesPropertiesTravelInMqtt5sEncoding() {
        var properties = Properties.builder().set(PropertyId.CONTENT_TYPE, "t").build();
        var message = new Message("a", Binary.utf8("x"), QoS.AT_LEAST_ONCE, true, properties, "", Message.NEVER, 1_000_000_000L);
        var bytes = codec.encode(new Shard.Forward(0, List.of(new Forwarded.ToClient("c", message))));
        // from, count, tag, "c", "a", payload length and "x", QoS 1, retain, then the properties: length 4, 0x03, "t"
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 1, 3, 0, 1, 'c', 0, 1, 'a', 0, 0, 0, 1, 'x', 1, 1, 4, 0x03, 0, 1, 't'},
                Arrays.copyOf(bytes, 27));
    }

    @Test
    void bytesThatAreNotAMeshMessageAreRefused() {
        var ack = codec.encode(new Shard.ForwardAck(3, true));
        assertThrows(MeshFormatException.class, () -> codec.decode(Arrays.copyOf(ack, 4), MeshCodec.FORWARD_ACK), "cut short");
        assertThrows(MeshFormatException.class, () -> codec.decode(Arrays.copyOf(ack, 6), MeshCodec.FORWARD_ACK), "too long");
        assertThrows(MeshFormatException.class, () -> codec.decode(new byte[] {0, 0, 0, 3, 2}, MeshCodec.FORWARD_ACK), "not a boolean");
        assertThrows(MeshFormatException.class, () -> codec.decode(new byte[] {0, 0, 0, 1, 99}, MeshCodec.CONTROL), "an unknown tag");
        assertThrows(MeshFormatException.class, () -> codec.decode(ack, "X"), "an unknown manifest");
        var published = new Message("a", Binary.EMPTY, QoS.AT_MOST_ONCE, false, Properties.NONE, "", Message.NEVER, 0);
        var forward = codec.encode(new Shard.Forward(0, List.of(new Forwarded.Published("p", published))));
        // from, count, tag, "p", "a", no payload, QoS, retain (21 bytes), then a property length of 1 and 0x00: no such property
        var malformed = new byte[forward.length + 1];
        System.arraycopy(forward, 0, malformed, 0, 21);
        malformed[21] = 1;
        System.arraycopy(forward, 22, malformed, 23, forward.length - 22);
        var refused = assertThrows(MeshFormatException.class, () -> codec.decode(malformed, MeshCodec.FORWARD), "malformed properties");
        assertInstanceOf(io.pekquitto.protocol.MalformedPacketException.class, refused.getCause());
        assertThrows(IllegalArgumentException.class, () -> MeshCodec.manifest("not a mesh message"));
    }

    @Test
    void theShardsAMessageNamesAreTheSameShardsOnTheNodeThatReadsIt() {
        var a = new MeshPeers(2, "pekquitto@a:1", true);
        int bZeroAtA = a.remoteId("pekquitto@b:1", 0);
        int cOneAtA = a.remoteId("pekquitto@c:1", 1);
        var b = new MeshPeers(2, "pekquitto@b:1", true);
        int cOneAtB = b.remoteId("pekquitto@c:1", 1);  // B met C first: C's shard has another number there
        var codec = new MeshCodec(System::nanoTime);
        var relinquish = new Shard.Control(1, new ControlMessage.Sessions(new SessionTransfer.Relinquish("c", 7,
                new SessionTransfer.Successor(cOneAtA, 8))));
        var homes = new Shard.Control(1, new ControlMessage.Homes(5, 1, List.of(
                Map.entry("x", new SessionTransfer.Successor(bZeroAtA, 9)), Map.entry("y", new SessionTransfer.Successor(0, 10)))));

        var atB = ShardNaming.of(b, a.node());
        var read = (Shard.Control) codec.decode(codec.encode(relinquish, ShardNaming.of(a, a.node())), 0, MeshCodec.CONTROL, atB);
        int aOneAtB = b.remoteId("pekquitto@a:1", 1);
        assertEquals(aOneAtB, read.from(), "the sender");
        var to = ((SessionTransfer.Relinquish) ((ControlMessage.Sessions) read.message()).transfer()).to();
        assertEquals(cOneAtB, to.shard(), "a third node's shard, as B numbers it");
        var holders = ((ControlMessage.Homes) ((Shard.Control) codec.decode(codec.encode(homes, ShardNaming.of(a, a.node())), 0,
                MeshCodec.CONTROL, atB)).message()).holders();
        assertEquals(0, holders.get(0).getValue().shard(), "B's own shard");
        assertEquals(b.remoteId("pekquitto@a:1", 0), holders.get(1).getValue().shard(), "the sender's other shard");
    }
}
