package io.pekquitto.cluster.mesh;

import io.pekquitto.protocol.QoS;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.PortableSession;
import io.pekquitto.shards.session.Session;
import io.pekquitto.shards.session.SubscriptionEntry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Random sessions in their portable form, every field varied, and how they look on another clock. */
final class PortableSessions {
    private PortableSessions() {}

    /** A message in flight under {@code packetId}, QoS 1 or 2, a QoS 2 one released or not. */
    static Arbitrary<PortableSession.InFlight> inFlight(int packetId) {
        return Combinators.combine(MeshMessages.messages(), Arbitraries.of(QoS.AT_LEAST_ONCE, QoS.EXACTLY_ONCE),
                Arbitraries.of(true, false)).as((m, qos, released) -> new PortableSession.InFlight(packetId,
                new Message(m.topic(), m.payload(), qos, m.retain(), m.properties(), m.sharedFilter(), m.expiryDeadline(), m.receivedAt()),
                qos == QoS.EXACTLY_ONCE && released));
    }

    /** Messages in flight under distinct packet identifiers. */
    static Arbitrary<List<PortableSession.InFlight>> inFlight() {
        return Arbitraries.integers().between(1, 65_535).set().ofMaxSize(4).flatMap(ids ->
                Combinators.combine(ids.stream().map(PortableSessions::inFlight).toList()).as(List::copyOf));
    }

    static Arbitrary<PortableSession.Will> wills() {
        return Combinators.combine(MeshMessages.messages(), Arbitraries.longs(), Arbitraries.longs())
                .as((message, ago, due) -> new PortableSession.Will(message, Duration.ofNanos(ago), Duration.ofNanos(due)));
    }

    /** What a session holds, then its times: more fields than one combination takes. */
    private record Held(String clientId, PortableSession.Limits limits, List<PortableSession.InFlight> inFlight,
                        List<Message> queued, Set<Integer> awaitingPubRel, long dropped, Map<String, SubscriptionEntry> subscriptions) {}

    static Arbitrary<PortableSession> sessions() {
        var limits = Combinators.combine(Arbitraries.integers().greaterOrEqual(0), Arbitraries.longs().greaterOrEqual(0),
                Arbitraries.of(true, false)).as(PortableSession.Limits::new);
        var held = Combinators.combine(MeshMessages.strings(), limits, inFlight(), MeshMessages.messages().list().ofMaxSize(4),
                Arbitraries.integers().between(1, 65_535).set().ofMaxSize(4), Arbitraries.longs().greaterOrEqual(0),
                Arbitraries.maps(MeshMessages.strings(), MeshMessages.entries()).ofMaxSize(3)).as(Held::new);
        var interval = Arbitraries.oneOf(Arbitraries.just(Session.NEVER_EXPIRES), Arbitraries.longs().between(1, Session.NEVER_EXPIRES));
        return Combinators.combine(held, interval, Arbitraries.longs(), wills().optional()).as((h, expiry, left, will) ->
                new PortableSession(h.clientId(), h.limits(), h.inFlight(), h.queued(), h.awaitingPubRel(), h.dropped(),
                        h.subscriptions(), expiry,
                        expiry == Session.NEVER_EXPIRES ? Optional.empty() : Optional.of(Duration.ofNanos(left)), will));
    }

    /** The session as it arrives on a clock {@code delta} ahead: its messages' times moved, its durations as they were. */
    static PortableSession shifted(PortableSession s, long delta) {
        return new PortableSession(s.clientId(), s.limits(),
                s.inFlight().stream().map(f -> new PortableSession.InFlight(f.packetId(), MeshMessages.shifted(f.message(), delta), f.released())).toList(),
                s.queued().stream().map(m -> MeshMessages.shifted(m, delta)).toList(), s.awaitingPubRel(), s.droppedMessages(),
                s.subscriptions(), s.sessionExpiryInterval(), s.expiresIn(),
                s.will().map(w -> new PortableSession.Will(MeshMessages.shifted(w.message(), delta), w.endedAgo(), w.dueIn())));
    }
}
