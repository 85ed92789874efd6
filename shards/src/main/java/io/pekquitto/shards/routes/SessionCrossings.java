package io.pekquitto.shards.routes;

import io.pekquitto.protocol.TopicFilter;
import io.pekquitto.shards.session.Message;
import io.pekquitto.shards.session.SessionTransfer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Sessions crossing from one shard to another, so that no message is lost or delivered twice while the peers learn
 * where a session's subscriptions are (docs/shards-and-mesh.md, A session crossing). A peer routes by interest it
 * heard of, so for a while it may route a client's messages to the shard the session left ({@code old}), to the one
 * it arrived at ({@code new}), or to both. Each peer cuts its stream once: when it hears that the session arrived
 * ({@code Moved}, sent by the new shard after it announced the session's interest), it sends a {@code Cut} marker,
 * in its data plane, to the old shard and to the new one. What the peer sent before its cut is the old shard's to
 * deliver: it keeps the session's subscriptions until every peer cut, and forwards those messages to the new shard;
 * what the peer sent after is the new shard's. The new shard holds a peer's messages that come after its cut until
 * the old shard says it forwarded all that came before ({@code CutPassed}), so each publisher's order is kept; and
 * it hands the session on no sooner than every peer passed. Plain rules; what to send goes to {@link Actions}.
 */
public final class SessionCrossings {
    /** The origin of a message routed by no peer's interest (one forwarded to a client, or to a shared member). */
    public static final int NO_PEER = -1;

    /** What the crossings make the shard do. */
    public interface Actions {
        /** Send the client's message on to {@code shard}, as one for that client alone. */
        void forward(int shard, String clientId, Message message);

        /** Tell the new shard {@code shard} that every message of {@code peer} from before its cut was forwarded. */
        void cutPassed(int shard, String clientId, int peer);

        /** The old shard routes the client's filter no more. */
        void unsubscribe(String clientId, String filter);

        /** Deliver the message to the client's session here. */
        void deliver(String clientId, Message message);

        /** A transfer of the session that waited for its crossing to end. */
        void transfer(SessionTransfer transfer);
    }

    /** What to do with a message routed here for a client. */
    public enum Decision { DELIVER, DONE }

    /** At the shard the session left. */
    private static final class Outgoing {
        final int to;
        final Set<Integer> notCut;
        final List<String> filters = new ArrayList<>();

        Outgoing(int to, Collection<Integer> peers) {
            this.to = to;
            this.notCut = new HashSet<>(peers);
        }
    }

    /** At the shard the session arrived at, for one peer: whether its cut came, whether the old shard passed it. */
    private static final class PeerCut {
        boolean cut;
        boolean passed;
        final List<Message> held = new ArrayList<>();
    }

    /** At the shard the session arrived at: the peers not done yet (cut and passed). */
    private static final class Incoming {
        final int from;
        final boolean discarded;
        final Map<Integer, PeerCut> peers = new HashMap<>();
        final List<SessionTransfer> deferred = new ArrayList<>();

        Incoming(int from, boolean discarded, Collection<Integer> all) {
            this.from = from;
            this.discarded = discarded;
            for (int peer : all) peers.put(peer, new PeerCut());
        }
    }

    private final Actions actions;
    private final Map<String, Outgoing> outgoing = new HashMap<>();
    private final Map<String, Incoming> incoming = new LinkedHashMap<>();

    public SessionCrossings(Actions actions) {
        this.actions = actions;
    }

    public boolean isEmpty() {
        return outgoing.isEmpty() && incoming.isEmpty();
    }

    /** Whether no session that left this shard is still routed here (a shard that stops must forward them first). */
    public boolean noneLeaving() {
        return outgoing.isEmpty();
    }

    // ---- at the shard the session left

    /** The client's session, whose subscriptions are indexed here, left for {@code to}; {@code peers}: every shard, this one too. */
    public void left(String clientId, int to, Collection<Integer> peers) {
        outgoing.put(clientId, new Outgoing(to, peers));
    }

    /**
     * A subscription of a session that left: kept in the index until every peer cut. False if the client crosses not,
     * or for a shared subscription: its members are known by client id everywhere, and go by their own path.
     */
    public boolean keepUntilCut(String clientId, String filter) {
        var crossing = outgoing.get(clientId);
        if (crossing == null || filter.startsWith(TopicFilter.SHARE_PREFIX)) return false;
        crossing.filters.add(filter);
        return true;
    }

    // ---- at the shard the session arrived at

    /**
     * The client's session arrived from {@code from}, where its subscriptions were indexed; {@code peers}: every shard;
     * {@code discarded}: Clean Start ended it here.
     */
    public void arrived(String clientId, int from, boolean discarded, Collection<Integer> peers) {
        incoming.put(clientId, new Incoming(from, discarded, peers));
    }

    /** Whether a message shard {@code from} forwarded to the client here is for its session (not for one Clean Start ended). */
    public boolean takesForwarded(String clientId, int from) {
        var arriving = incoming.get(clientId);
        return arriving == null || arriving.from != from || !arriving.discarded;
    }

    /** A transfer of the session (a later claim wants it) waits until its crossing ended; false if it crosses not. */
    public boolean deferUntilCrossed(SessionTransfer transfer) {
        var crossing = incoming.get(transfer.clientId());
        if (crossing == null) return false;
        crossing.deferred.add(transfer);
        return true;
    }

    // ---- messages and markers

    /**
     * A message for the client, routed here by {@code origin}'s interest (or {@link #NO_PEER}): {@link Decision#DELIVER}
     * if it is this shard's to deliver now; else it was forwarded, held, or is the other shard's to deliver.
     */
    public Decision route(String clientId, int origin, Message message) {
        if (origin == NO_PEER) return Decision.DELIVER;
        var leaving = outgoing.get(clientId);
        if (leaving != null) {
            if (leaving.notCut.contains(origin)) actions.forward(leaving.to, clientId, message);  // sent before its cut
            return Decision.DONE;
        }
        var arriving = incoming.get(clientId);
        var peer = arriving == null ? null : arriving.peers.get(origin);
        if (peer == null) return Decision.DELIVER;
        if (peer.cut) peer.held.add(message);  // after its cut: once what came before it is forwarded
        return Decision.DONE;  // before its cut: the old shard forwards it
    }

    /** {@code peer} cut its stream for the client: this shard is the old one, the new one, or neither (it moved on). */
    public void cut(String clientId, int peer) {
        var leaving = outgoing.get(clientId);
        if (leaving != null) {
            if (leaving.notCut.remove(peer)) actions.cutPassed(leaving.to, clientId, peer);
            if (leaving.notCut.isEmpty()) endOutgoing(clientId);
            return;
        }
        var arriving = incoming.get(clientId);
        var state = arriving == null ? null : arriving.peers.get(peer);
        if (state == null) return;
        state.cut = true;
        if (state.passed) done(clientId, arriving, peer);
    }

    /** The old shard forwarded every message of {@code peer} from before its cut: once the cut came, the held ones go. */
    public void passed(String clientId, int peer) {
        var arriving = incoming.get(clientId);
        var state = arriving == null ? null : arriving.peers.get(peer);
        if (state == null) return;
        state.passed = true;
        if (state.cut) done(clientId, arriving, peer);
    }

    /** Nothing more of {@code peer}'s for the client comes through the old shard: what it held goes, and then the rest. */
    private void done(String clientId, Incoming arriving, int peer) {
        arriving.peers.remove(peer).held.forEach(message -> actions.deliver(clientId, message));
        if (arriving.peers.isEmpty()) endIncoming(clientId);
    }

    /**
     * A peer is gone (its node left), or restarted with empty state: no cut will come from it, nor anything more it
     * sent before; if it was a crossing's old shard, nothing more is forwarded; if its new shard, it lost the session.
     */
    public void peerGone(int peer) {
        for (var clientId : List.copyOf(outgoing.keySet())) {
            var leaving = outgoing.get(clientId);
            if (leaving.to == peer) {
                endOutgoing(clientId);
            } else {
                cut(clientId, peer);
            }
        }
        for (var clientId : List.copyOf(incoming.keySet())) {
            var arriving = incoming.get(clientId);
            for (int other : List.copyOf(arriving.peers.keySet())) {
                // Nothing more comes from a gone peer; nothing more is forwarded by a gone old shard.
                if (other == peer || arriving.from == peer) done(clientId, arriving, other);
            }
        }
    }

    private void endOutgoing(String clientId) {
        var leaving = outgoing.remove(clientId);
        leaving.filters.forEach(filter -> actions.unsubscribe(clientId, filter));
    }

    private void endIncoming(String clientId) {
        var arriving = incoming.remove(clientId);
        arriving.deferred.forEach(actions::transfer);
    }
}
