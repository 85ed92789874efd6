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
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.mesh.Forwarded;
import io.pekquitto.shards.node.MeshPeers;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.MigratedSession;
import io.pekquitto.shards.session.PortableSession;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SessionTransfer;
import io.pekquitto.shards.session.SubscriptionEntry;
import io.pekquitto.shards.shard.ShardCommand;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MeshCodecTest {
    private final MeshCodec codec = new MeshCodec(() -> 1_000_000_000L);

    @Test
    void aHandoverWithALiveSessionIsRefusedNamingItsClient() {
        var session = new MigratedSession(new Session("c1", 10, false), Map.of(), 60, 0, Optional.empty(), false);
        var handover = new ShardCommand.Control(2, new ControlMessage.Sessions(new SessionTransfer.Handover("c1", 7, Optional.of(session))));
        var refused = assertThrows(IllegalArgumentException.class, () -> codec.encode(handover));
        assertTrue(refused.getMessage().startsWith("a live session cannot leave its node; export it first"), refused.getMessage());
        assertTrue(refused.getMessage().contains("c1"), refused.getMessage());
        var empty = new ShardCommand.Control(2, new ControlMessage.Sessions(new SessionTransfer.Handover("c1", 7, Optional.empty())));
        assertEquals(empty, codec.decode(codec.encode(empty), MeshCodec.CONTROL), "a Handover without a session goes");
    }

    /** A session without messages (their layout is a Message's), awaiting PUBREL for 5, subscribed to a/+, expiring in 3 s. */
    private static final PortableSession PORTABLE = new PortableSession("c", new PortableSession.Limits(100, 0, false), List.of(),
            List.of(), Set.of(5), 2, Map.of("a/+", new SubscriptionEntry(new SubscriptionOptions(QoS.AT_LEAST_ONCE, false, true, 1), 9)),
            60, Optional.of(Duration.ofSeconds(3)), Optional.empty());
    private static final byte[] PORTABLE_HANDOVER = {
        0, 0, 0, 1, 4, 3, 0, 1, 'c', 0, 0, 0, 0, 0, 0, 0, 7, 1,  // from, Sessions, Handover, "c", token 7, a session
        0, 1, 'c', 0, 0, 0, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0,     // "c", 100 messages, no byte limit, no QoS 0 kept
        0, 0, 0, 0, 0, 0, 0, 0,                                 // nothing in flight, nothing queued
        0, 0, 0, 1, 0, 5, 0, 0, 0, 0, 0, 0, 0, 2,               // awaiting PUBREL: 5; 2 dropped
        0, 0, 0, 1, 0, 3, 'a', '/', '+', 1, 0, 1, 1, 0, 0, 0, 9, // a/+: QoS 1, Retain As Published, Retain Handling 1, id 9
        0, 0, 0, 0, 0, 0, 0, 60, 1, 0, 0, 0, 0, (byte) 0xB2, (byte) 0xD0, 0x5E, 0, 0, // 60 s, expiring in 3e9 ns, no will
        0                                                       // indexed nowhere else
    };

    @Test
    void theLayoutOfAHandoverWithAPortableSession() {
        var handover = new ShardCommand.Control(1, new ControlMessage.Sessions(new SessionTransfer.Handover("c", 7, Optional.of(PORTABLE))));
        assertArrayEquals(PORTABLE_HANDOVER, codec.encode(handover));
        assertEquals(handover, codec.decode(PORTABLE_HANDOVER, MeshCodec.CONTROL));
    }

    @Test
    void aPortableSessionThatBreaksItsRulesIsRefused() {
        var zeroPacketId = PORTABLE_HANDOVER.clone();
        zeroPacketId[47] = 0;  // awaiting PUBREL for packet identifier 0 [MQTT-2.2.1-3]
        assertThrows(MeshFormatException.class, () -> codec.decode(zeroPacketId, MeshCodec.CONTROL));
        var otherClient = PORTABLE_HANDOVER.clone();
        otherClient[20] = 'd';  // the Handover of c carries the session of d
        var refused = assertThrows(MeshFormatException.class, () -> codec.decode(otherClient, MeshCodec.CONTROL));
        assertTrue(refused.getMessage().contains("carries the session of d"), refused.getMessage());
        var noExpiry = PORTABLE_HANDOVER.clone();
        noExpiry[80] = 0;  // an interval of 0: such a session ends with its connection, it never moves
        assertThrows(MeshFormatException.class, () -> codec.decode(noExpiry, MeshCodec.CONTROL));
        var awaitingTwice = spliced(PORTABLE_HANDOVER, 46, (byte) 0, (byte) 5);  // 5, 5
        awaitingTwice[45] = 2;
        assertThrows(MeshFormatException.class, () -> codec.decode(awaitingTwice, MeshCodec.CONTROL), "awaiting PUBREL twice");
        var subscribedTwice = spliced(PORTABLE_HANDOVER, 73, Arrays.copyOfRange(PORTABLE_HANDOVER, 60, 73));  // a/+, a/+
        subscribedTwice[59] = 2;
        assertThrows(MeshFormatException.class, () -> codec.decode(subscribedTwice, MeshCodec.CONTROL), "a filter twice");
    }

    /** {@code bytes} with {@code inserted} at {@code at}. */
    private static byte[] spliced(byte[] bytes, int at, byte... inserted) {
        var result = Arrays.copyOf(bytes, bytes.length + inserted.length);
        System.arraycopy(inserted, 0, result, at, inserted.length);
        System.arraycopy(bytes, at, result, at + inserted.length, bytes.length - at);
        return result;
    }

    @Test
    void theLayoutOfAnAcknowledgementAndAControlMessage() {
        assertArrayEquals(new byte[] {0, 0, 0, 3, 1}, codec.encode(new ShardCommand.ForwardAck(3, true)));
        assertArrayEquals(new byte[] {0, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0, 9}, codec.encode(new ShardCommand.Control(1, new ControlMessage.Sync(9))));
        assertArrayEquals(new byte[] {0, 0, 0, 1, 3, 1, 0, 2, 'a', '/'},
                codec.encode(new ShardCommand.Control(1, new ControlMessage.Routes(new io.pekquitto.shards.routes.RouteChange.InterestAdded("a/")))));
    }

    @Test
    void aMessagesPropertiesTravelInMqtt5sEncoding() {
        var properties = Properties.builder().set(PropertyId.CONTENT_TYPE, "t").build();
        var message = new Message("a", Binary.utf8("x"), QoS.AT_LEAST_ONCE, true, properties, "", Message.NEVER, 1_000_000_000L);
        var bytes = codec.encode(new ShardCommand.Forward(0, List.of(new Forwarded.ToClient("c", message))));
        // from, count, tag, "c", "a", payload length and "x", QoS 1, retain, then the properties: length 4, 0x03, "t"
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 1, 3, 0, 1, 'c', 0, 1, 'a', 0, 0, 0, 1, 'x', 1, 1, 4, 0x03, 0, 1, 't'},
                Arrays.copyOf(bytes, 27));
    }

    @Test
    void bytesThatAreNotAMeshMessageAreRefused() {
        var ack = codec.encode(new ShardCommand.ForwardAck(3, true));
        assertThrows(MeshFormatException.class, () -> codec.decode(Arrays.copyOf(ack, 4), MeshCodec.FORWARD_ACK), "cut short");
        assertThrows(MeshFormatException.class, () -> codec.decode(Arrays.copyOf(ack, 6), MeshCodec.FORWARD_ACK), "too long");
        assertThrows(MeshFormatException.class, () -> codec.decode(new byte[] {0, 0, 0, 3, 2}, MeshCodec.FORWARD_ACK), "not a boolean");
        assertThrows(MeshFormatException.class, () -> codec.decode(new byte[] {0, 0, 0, 1, 99}, MeshCodec.CONTROL), "an unknown tag");
        assertThrows(MeshFormatException.class, () -> codec.decode(ack, "X"), "an unknown manifest");
        var published = new Message("a", Binary.EMPTY, QoS.AT_MOST_ONCE, false, Properties.NONE, "", Message.NEVER, 0);
        var forward = codec.encode(new ShardCommand.Forward(0, List.of(new Forwarded.Published("p", published))));
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
        var relinquish = new ShardCommand.Control(1, new ControlMessage.Sessions(new SessionTransfer.Relinquish("c", 7,
                new SessionTransfer.Successor(cOneAtA, 8))));
        var homes = new ShardCommand.Control(1, new ControlMessage.Homes(5, 1, List.of(
                Map.entry("x", new SessionTransfer.Successor(bZeroAtA, 9)), Map.entry("y", new SessionTransfer.Successor(0, 10)))));

        var atB = ShardNaming.of(b, a.node());
        var read = (ShardCommand.Control) codec.decode(codec.encode(relinquish, ShardNaming.of(a, a.node())), 0, MeshCodec.CONTROL, atB);
        int aOneAtB = b.remoteId("pekquitto@a:1", 1);
        assertEquals(aOneAtB, read.from(), "the sender");
        var to = ((SessionTransfer.Relinquish) ((ControlMessage.Sessions) read.message()).transfer()).to();
        assertEquals(cOneAtB, to.shard(), "a third node's shard, as B numbers it");
        var holders = ((ControlMessage.Homes) ((ShardCommand.Control) codec.decode(codec.encode(homes, ShardNaming.of(a, a.node())), 0,
                MeshCodec.CONTROL, atB)).message()).holders();
        assertEquals(0, holders.get(0).getValue().shard(), "B's own shard");
        assertEquals(b.remoteId("pekquitto@a:1", 0), holders.get(1).getValue().shard(), "the sender's other shard");
    }

    @Test
    void aWillToKeepNamesItsHolderAsTheKeepersNodeNumbersIt() {
        var a = new MeshPeers(2, "pekquitto@a:1", true);
        var b = new MeshPeers(2, "pekquitto@b:1", true);
        b.remoteId("pekquitto@c:1", 0);  // B numbers other shards first: A's get other numbers there
        var codec = new MeshCodec(System::nanoTime);
        var will = new Message("will/t", Binary.utf8("gone"), QoS.AT_LEAST_ONCE, true, Properties.NONE, "", Message.NEVER, 0);
        var keep = new ShardCommand.Control(1, new ControlMessage.Sessions(new SessionTransfer.KeepWill("c", 1, 42, will, 30)));
        var forget = new ShardCommand.Control(1, new ControlMessage.Sessions(new SessionTransfer.ForgetWill("c", 1, 42)));
        var atB = ShardNaming.of(b, a.node());
        var kept = (ShardCommand.Control) codec.decode(codec.encode(keep, ShardNaming.of(a, a.node())), 0, MeshCodec.CONTROL, atB);
        var forgotten = (ShardCommand.Control) codec.decode(codec.encode(forget, ShardNaming.of(a, a.node())), 0, MeshCodec.CONTROL, atB);
        int aOneAtB = b.remoteId("pekquitto@a:1", 1);
        var keepWill = (SessionTransfer.KeepWill) ((ControlMessage.Sessions) kept.message()).transfer();
        assertEquals(aOneAtB, keepWill.shard(), "the holder, as the keeper numbers it: the one its node's loss names");
        assertEquals(42, keepWill.token());
        assertEquals(30, keepWill.delaySeconds());
        assertEquals("will/t", keepWill.will().topic());
        assertEquals(new SessionTransfer.ForgetWill("c", aOneAtB, 42), ((ControlMessage.Sessions) forgotten.message()).transfer());
    }
}
