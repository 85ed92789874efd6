package io.pekquitto.shards.session;

import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.codec.PropertiesCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A session as it leaves its node for a shard on another ({@link SessionExport}, {@link SessionImport}):
 * plain values, with everything a session is, for a node that shares neither its heap nor its store.
 * Its messages are in the order the session would send them: {@code inFlight} in send order (each under
 * its packet identifier, {@code released} once its PUBREC came and PUBREL went out: it awaits PUBCOMP),
 * then {@code queued}, those the session held in the heap and those that waited in the store alone.
 * No DUP flag: a session keeps none, every PUBLISH in flight is sent again with DUP set.
 *
 * <p>Its own times are durations from its export, not instants: another JVM's nanosecond clock means
 * nothing here. {@code expiresIn} is empty for a session that never expires. Its messages are
 * {@link Message}s like any other on the mesh, on this JVM's clock until the mesh's codec writes their
 * ages.
 */
public record PortableSession(String clientId, Limits limits, List<InFlight> inFlight, List<Message> queued,
                              Set<Integer> awaitingPubRel, long droppedMessages, Map<String, SubscriptionEntry> subscriptions,
                              long sessionExpiryInterval, Optional<Duration> expiresIn, Optional<Will> will)
        implements MovingSession {

    public PortableSession {
        Objects.requireNonNull(clientId, "clientId");
        Objects.requireNonNull(limits, "limits");
        inFlight = List.copyOf(inFlight);
        queued = List.copyOf(queued);
        awaitingPubRel = Set.copyOf(awaitingPubRel);
        subscriptions = Map.copyOf(subscriptions);
        Objects.requireNonNull(expiresIn, "expiresIn");
        Objects.requireNonNull(will, "will");
        var packetIds = new HashSet<Integer>();
        for (var flight : inFlight) {
            if (!packetIds.add(flight.packetId())) throw new IllegalArgumentException("packet identifier " + flight.packetId() + " in flight twice");
        }
        awaitingPubRel.forEach(PortableSession::checkPacketId);
        if (droppedMessages < 0) throw new IllegalArgumentException("a dropped count of " + droppedMessages);
        // A session that ends with its connection never moves with its state: it ends where it is.
        if (sessionExpiryInterval <= 0 || sessionExpiryInterval > Session.NEVER_EXPIRES) {
            throw new IllegalArgumentException("a Session Expiry Interval of " + sessionExpiryInterval);
        }
        if (expiresIn.isPresent() == (sessionExpiryInterval == Session.NEVER_EXPIRES)) {
            throw new IllegalArgumentException("expires in " + expiresIn + " with an interval of " + sessionExpiryInterval);
        }
    }

    /**
     * This session, its newest queued messages dropped and counted until what it carries weighs at most
     * {@code bytes}: a session moves between nodes in one message, which Pekko's frame bounds (MeshPeers.sessionBytes).
     */
    public PortableSession within(long bytes) {
        long weight = 0;
        for (var flight : inFlight) weight += weight(flight.message());
        for (var message : queued) weight += weight(message);
        if (weight <= bytes) return this;
        var kept = new ArrayList<>(queued);
        long dropped = droppedMessages;
        while (weight > bytes && !kept.isEmpty()) {
            weight -= weight(kept.remove(kept.size() - 1));
            dropped++;
        }
        return new PortableSession(clientId, limits, inFlight, kept, awaitingPubRel, dropped, subscriptions,
                sessionExpiryInterval, expiresIn, will);
    }

    /** What a message weighs on the wire, at most: its topic in UTF-8, payload and properties, and its other fields. */
    private static long weight(Message message) {
        return 3L * message.topic().length() + message.payload().length() + PropertiesCodec.encodedSize(message.properties()) + 128;
    }

    /** The queue's limits the session was made with: {@code max-queued-messages}, {@code max-queued-bytes}, {@code queue-qos0-messages}. */
    public record Limits(int maxQueuedMessages, long maxQueuedBytes, boolean queueQos0Messages) {
        public Limits {
            if (maxQueuedMessages < 0 || maxQueuedBytes < 0) {
                throw new IllegalArgumentException("limits of " + maxQueuedMessages + " messages and " + maxQueuedBytes + " bytes");
            }
        }
    }

    /** A QoS 1/2 message sent under {@code packetId}; {@code released}: a QoS 2 one whose PUBREC came, awaiting PUBCOMP. */
    public record InFlight(int packetId, Message message, boolean released) {
        public InFlight {
            checkPacketId(packetId);
            if (message.qos() == QoS.AT_MOST_ONCE) throw new IllegalArgumentException("a QoS 0 message in flight");
            if (released && message.qos() != QoS.EXACTLY_ONCE) throw new IllegalArgumentException("a QoS 1 message released");
        }
    }

    /**
     * A will waiting out its delay: its connection ended {@code endedAgo} before the export (its Message
     * Expiry Interval starts at its publication), and it is due {@code dueIn} after it.
     */
    public record Will(Message message, Duration endedAgo, Duration dueIn) {
        public Will {
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(endedAgo, "endedAgo");
            Objects.requireNonNull(dueIn, "dueIn");
        }
    }

    private static void checkPacketId(int packetId) {
        if (packetId < 1 || packetId > 65_535) throw new IllegalArgumentException("packet identifier " + packetId);  // [MQTT-2.2.1-3]
    }
}
