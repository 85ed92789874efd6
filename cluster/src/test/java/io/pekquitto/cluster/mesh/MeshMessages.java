package io.pekquitto.cluster.mesh;

import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.Properties;
import io.pekquitto.protocol.PropertyId;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.SubscriptionOptions;
import io.pekquitto.shards.mesh.ControlMessage;
import io.pekquitto.shards.mesh.Forwarded;
import io.pekquitto.shards.routes.RouteChange;
import io.pekquitto.shards.routes.SharedGroups;
import io.pekquitto.shards.session.Availability;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.PortableSession;
import io.pekquitto.shards.session.SessionTransfer;
import io.pekquitto.shards.session.SubscriptionEntry;
import io.pekquitto.shards.shard.ShardCommand;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Random mesh messages of every type, every field varied, and how to compare them: a {@code ToMember}'s
 * relay key is an array, which a record compares by reference, so it is compared by its contents.
 */
final class MeshMessages {
    /** One, two, three and four UTF-8 bytes, MQTT's separators and wildcards. */
    private static final List<String> CHARS = List.of("a", "b", "z", "0", "/", " ", "$", "+", "#", "é", "€", "中", "\uD83D\uDE00");

    private MeshMessages() {}

    static Arbitrary<String> strings() {
        return Arbitraries.of(CHARS).list().ofMaxSize(24).map(chars -> String.join("", chars));
    }

    static Arbitrary<QoS> qos() {
        return Arbitraries.of(QoS.class);
    }

    static Arbitrary<Binary> payloads() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(4096).map(Binary::wrap);
    }

    /** PUBLISH properties: none, or any of those a message carries, repeatable ones repeated. */
    static Arbitrary<Properties> properties() {
        var subscriptionIds = Arbitraries.integers().between(1, 268_435_455).list().ofMaxSize(3);
        var userProperties = Combinators.combine(strings(), strings()).as(List::of).list().ofMaxSize(3);
        var optional = Arbitraries.integers().between(0, 1);  // 1: the property is there
        var all = Combinators.combine(optional.list().ofSize(5), Arbitraries.integers().between(0, 1),
                Arbitraries.longs().between(0, 0xFFFF_FFFFL), strings(), strings(), payloads());
        return Combinators.combine(all.as((present, format, expiry, contentType, responseTopic, correlation) -> {
            var builder = Properties.builder();
            if (present.get(0) == 1) builder.set(PropertyId.PAYLOAD_FORMAT_INDICATOR, format);
            if (present.get(1) == 1) builder.set(PropertyId.MESSAGE_EXPIRY_INTERVAL, expiry);
            if (present.get(2) == 1) builder.set(PropertyId.CONTENT_TYPE, contentType);
            if (present.get(3) == 1) builder.set(PropertyId.RESPONSE_TOPIC, responseTopic);
            if (present.get(4) == 1) builder.set(PropertyId.CORRELATION_DATA, correlation);
            return builder;
        }), subscriptionIds, userProperties).as((builder, ids, users) -> {
            ids.forEach(builder::addSubscriptionIdentifier);
            users.forEach(pair -> builder.addUserProperty(pair.get(0), pair.get(1)));
            return builder.build();
        });
    }

    /** A message received at any time, expiring at any offset from it (past ones too) or never. */
    static Arbitrary<Message> messages() {
        var sharedFilter = Arbitraries.oneOf(Arbitraries.just(""), strings().map(f -> "$share/g/" + f));
        var deadlineOffset = Arbitraries.oneOf(Arbitraries.just(Message.NEVER),
                Arbitraries.longs().between(-5_000_000_000L, 4_294_967_295_000_000_000L));
        return Combinators.combine(strings(), payloads(), qos(), Arbitraries.of(true, false), properties(), sharedFilter,
                deadlineOffset, Arbitraries.longs()).as((topic, payload, qos, retain, properties, shared, offset, receivedAt) ->
                new Message(topic, payload, qos, retain, properties, shared,
                        offset == Message.NEVER ? Message.NEVER : receivedAt + offset, receivedAt));
    }

    static Arbitrary<Forwarded> forwarded() {
        var relay = Arbitraries.oneOf(Arbitraries.just((byte[]) null), Arbitraries.bytes().array(byte[].class).ofMaxSize(40));
        return Arbitraries.oneOf(
                Combinators.combine(strings(), messages()).as(Forwarded.Published::new),
                Combinators.combine(strings(), messages(), strings(), strings(), relay, Arbitraries.of(true, false))
                        .as(Forwarded.ToMember::new),
                Combinators.combine(strings(), messages()).as(Forwarded.ToClient::new),
                messages().map(Forwarded.Retained::new),
                strings().map(Forwarded.Cut::new),
                Combinators.combine(strings(), Arbitraries.integers().between(0, 3)).as(Forwarded.CutPassed::new));
    }

    static Arbitrary<ShardCommand.Forward> forwards() {
        return Combinators.combine(Arbitraries.integers(), forwarded().list().ofMaxSize(6)).as(ShardCommand.Forward::new);
    }

    static Arbitrary<ShardCommand.ForwardAck> forwardAcks() {
        return Combinators.combine(Arbitraries.integers(), Arbitraries.of(true, false)).as(ShardCommand.ForwardAck::new);
    }

    static Arbitrary<SubscriptionEntry> entries() {
        var options = Combinators.combine(qos(), Arbitraries.of(true, false), Arbitraries.of(true, false),
                Arbitraries.integers().between(0, 2)).as(SubscriptionOptions::new);
        return Combinators.combine(options, Arbitraries.integers().between(0, 268_435_455)).as(SubscriptionEntry::new);
    }

    static Arbitrary<RouteChange> routeChanges() {
        var member = Combinators.combine(strings(), Arbitraries.integers(), entries(), Arbitraries.of(Availability.class))
                .as(SharedGroups.Member::new);
        return Arbitraries.oneOf(
                strings().map(RouteChange.InterestAdded::new),
                strings().map(RouteChange.InterestRemoved::new),
                Combinators.combine(strings(), strings(), member).as(RouteChange.Joined::new),
                Combinators.combine(strings(), strings(), strings()).as(RouteChange.Left::new),
                Combinators.combine(strings(), Arbitraries.of(Availability.class)).as(RouteChange.Available::new));
    }

    static Arbitrary<SessionTransfer.Successor> successors() {
        return Combinators.combine(Arbitraries.integers(), Arbitraries.longs()).as(SessionTransfer.Successor::new);
    }

    /** Every transfer; a {@code Handover} without a session or with a portable one (a live one never leaves its node). */
    static Arbitrary<SessionTransfer> transfers() {
        var tokens = Arbitraries.longs();
        return Arbitraries.oneOf(
                Combinators.combine(strings(), Arbitraries.integers(), tokens).as(SessionTransfer.Claim::new),
                Combinators.combine(strings(), tokens, successors()).as(SessionTransfer.Relinquish::new),
                Combinators.combine(strings(), tokens).as((id, token) -> new SessionTransfer.Handover(id, token, Optional.empty())),
                handovers(),
                Combinators.combine(strings(), tokens).as(SessionTransfer.Ended::new),
                Combinators.combine(strings(), Arbitraries.integers(), tokens)
                        .as((id, shard, token) -> new SessionTransfer.Redirect(new SessionTransfer.Claim(id, shard, token))),
                Combinators.combine(strings(), tokens).as((id, token) -> new SessionTransfer.Redirect(new SessionTransfer.Ended(id, token))),
                Combinators.combine(strings(), Arbitraries.integers(), tokens, messages(), Arbitraries.longs().between(0, 0xFFFF_FFFFL))
                        .as(SessionTransfer.KeepWill::new),
                Combinators.combine(strings(), Arbitraries.integers(), tokens).as(SessionTransfer.ForgetWill::new),
                Combinators.combine(strings(), tokens).as(SessionTransfer.Adopt::new),
                Combinators.combine(strings(), Arbitraries.integers(), tokens, tokens).as(SessionTransfer.Claim::new));
    }

    /** A Handover carrying a session in its portable form. */
    static Arbitrary<SessionTransfer.Handover> handovers() {
        return Combinators.combine(PortableSessions.sessions(), Arbitraries.longs())
                .as((session, token) -> new SessionTransfer.Handover(session.clientId(), token, Optional.of(session),
                        (int) (token & 3) - 1));  // indexed nowhere else, or on shard 0, 1 or 2
    }

    static Arbitrary<ControlMessage> controlMessages() {
        var held = Combinators.combine(strings(), successors()).as(Map::entry).list().ofMaxSize(4);
        return Arbitraries.oneOf(
                Arbitraries.just(new ControlMessage.Hello()),
                Combinators.combine(routeChanges().list().ofMaxSize(4), held)
                        .as((routes, sessions) -> new ControlMessage.Resync(routes, List.copyOf(sessions))),
                routeChanges().map(ControlMessage.Routes::new),
                transfers().map(ControlMessage.Sessions::new),
                Arbitraries.longs().map(ControlMessage.Sync::new),
                Arbitraries.longs().map(ControlMessage.SyncAck::new),
                Combinators.combine(Arbitraries.longs(), Arbitraries.integers().between(0, 2), held)
                        .as((epoch, round, holders) -> new ControlMessage.Homes(epoch, round, List.copyOf(holders))),
                Combinators.combine(strings(), Arbitraries.integers().between(0, 3)).as(ControlMessage.Moved::new));
    }

    static Arbitrary<ShardCommand.Control> controls() {
        return Combinators.combine(Arbitraries.integers(), controlMessages()).as(ShardCommand.Control::new);
    }

    static Arbitrary<Object> meshMessages() {
        return Arbitraries.oneOf(forwards(), forwardAcks(), controls());
    }

    /** {@code message} with its messages' times moved by {@code delta} (as they arrive on another clock). */
    static Object shifted(Object message, long delta) {
        if (message instanceof ShardCommand.Control control && control.message() instanceof ControlMessage.Sessions sessions) {
            return new ShardCommand.Control(control.from(), new ControlMessage.Sessions(shifted(sessions.transfer(), delta)));
        }
        if (!(message instanceof ShardCommand.Forward forward)) return message;
        return new ShardCommand.Forward(forward.from(), forward.items().stream().map(item -> {
            if (item instanceof Forwarded.Published p) return (Forwarded) new Forwarded.Published(p.publisherId(), shifted(p.message(), delta));
            if (item instanceof Forwarded.ToClient c) return new Forwarded.ToClient(c.clientId(), shifted(c.message(), delta));
            if (item instanceof Forwarded.Retained r) return new Forwarded.Retained(shifted(r.message(), delta));
            if (item instanceof Forwarded.Cut || item instanceof Forwarded.CutPassed) return item;
            var m = (Forwarded.ToMember) item;
            return new Forwarded.ToMember(m.publisherId(), shifted(m.message(), delta), m.clientId(), m.sharedFilter(), m.relay(),
                    m.redirected());
        }).toList());
    }

    /** A Handover's session and a KeepWill's will as they arrive on another clock; the rest as they were. */
    static SessionTransfer shifted(SessionTransfer transfer, long delta) {
        if (transfer instanceof SessionTransfer.Handover handover && handover.session().isPresent()) {
            var session = PortableSessions.shifted((PortableSession) handover.session().get(), delta);
            return new SessionTransfer.Handover(handover.clientId(), handover.token(), Optional.of(session), handover.indexedOn());
        }
        if (transfer instanceof SessionTransfer.KeepWill keep) {
            return new SessionTransfer.KeepWill(keep.clientId(), keep.shard(), keep.token(), shifted(keep.will(), delta),
                    keep.delaySeconds());
        }
        return transfer;
    }

    static Message shifted(Message m, long delta) {
        long deadline = m.expiryDeadline() == Message.NEVER ? Message.NEVER : m.expiryDeadline() + delta;
        return new Message(m.topic(), m.payload(), m.qos(), m.retain(), m.properties(), m.sharedFilter(), deadline,
                m.receivedAt() + delta);
    }

    /** What equality compares: the message, with each relay key by its contents. */
    static Object comparable(Object message) {
        if (!(message instanceof ShardCommand.Forward forward)) return message;
        return List.of("Forward", forward.from(), forward.items().stream().map(item -> item instanceof Forwarded.ToMember m
                ? List.of("ToMember", m.publisherId(), m.message(), m.clientId(), m.sharedFilter(),
                        m.relay() == null ? "no relay" : HexFormat.of().formatHex(m.relay()), m.redirected())
                : item).toList());
    }
}
