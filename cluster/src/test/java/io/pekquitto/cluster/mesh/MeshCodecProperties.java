package io.pekquitto.cluster.mesh;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.mesh.Forwarded;
import io.pekquitto.shards.session.SessionTransfer;
import io.pekquitto.shards.shard.ShardCommand;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Every mesh message comes out of the codec as it went in, on a node whose clock reads anything: its
 * messages' times as far from the receiver's now as they were from the sender's (their age and their
 * time to expiry kept), a moving session's durations as they were.
 */
class MeshCodecProperties {
    @Provide
    Arbitrary<Object> meshMessages() {
        return MeshMessages.meshMessages();
    }

    @Property(tries = 1000)
    void aMessageArrivesAsItWasSentItsAgeKept(@ForAll("meshMessages") Object message, @ForAll long sentAt, @ForAll long arrivesAt) {
        var sender = new MeshCodec(() -> sentAt);
        var receiver = new MeshCodec(() -> arrivesAt);
        var manifest = MeshCodec.manifest(message);
        var arrived = receiver.decode(sender.encode(message), manifest);
        assertEquals(MeshMessages.comparable(MeshMessages.shifted(message, arrivesAt - sentAt)), MeshMessages.comparable(arrived));
    }

    @Property(tries = 300)
    void aMessageAgesOnTheReceiversClock(@ForAll("forwards") ShardCommand.Forward forward, @ForAll long sentAt, @ForAll long arrivesAt) {
        var arrived = (ShardCommand.Forward) new MeshCodec(() -> arrivesAt).decode(new MeshCodec(() -> sentAt).encode(forward), "F");
        for (int i = 0; i < forward.items().size(); i++) {
            var sent = Forwarded.messageOf(forward.items().get(i));
            var received = Forwarded.messageOf(arrived.items().get(i));
            if (sent == null) continue;  // a marker of a session crossing
            assertEquals(sentAt - sent.receivedAt(), arrivesAt - received.receivedAt(), "its age");
            assertEquals(sent.isExpired(sentAt), received.isExpired(arrivesAt), "expired or not");
            int packetId = sent.qos().value() == 0 ? 0 : 1;
            assertEquals(sent.toPublish(packetId, false, sentAt), received.toPublish(packetId, false, arrivesAt),
                    "its Message Expiry Interval left");
        }
    }

    @Provide
    Arbitrary<ShardCommand.Forward> forwards() {
        return MeshMessages.forwards();
    }

    @Property(tries = 500)
    void aHandoverCarriesAPortableSessionToAnotherClock(@ForAll("handovers") SessionTransfer.Handover handover, @ForAll int from,
                                                        @ForAll long sentAt, @ForAll long arrivesAt) {
        var control = new ShardCommand.Control(from, new ControlMessage.Sessions(handover));
        var arrived = new MeshCodec(() -> arrivesAt).decode(new MeshCodec(() -> sentAt).encode(control), MeshCodec.CONTROL);
        // Every field as it was sent: its messages as old on the receiver's clock, its durations unchanged.
        assertEquals(MeshMessages.shifted(control, arrivesAt - sentAt), arrived);
    }

    @Provide
    Arbitrary<SessionTransfer.Handover> handovers() {
        return MeshMessages.handovers();
    }
}
