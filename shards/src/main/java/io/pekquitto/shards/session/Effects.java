package io.pekquitto.shards.session;

import java.util.ArrayList;
import java.util.List;

/**
 * The effects decided during one call of the session rules, handed to the shard at its end; each session handed to
 * another shard leaves its forwarding address ({@link MovedSessions}).
 */
final class Effects<C> {
    private final ArrayList<SessionEffect<C>> pending = new ArrayList<>();
    private final MovedSessions moved = new MovedSessions();

    void add(SessionEffect<C> effect) {
        pending.add(effect);
    }

    /** Send {@code message} to {@code shard}, possibly this one. */
    void transfer(int shard, SessionTransfer message) {
        if (message instanceof SessionTransfer.Handover handover && handover.session().isPresent()) {
            moved.left(handover.clientId(), shard);
        }
        pending.add(new SessionEffect.Transfer<>(shard, message));
    }

    /** Where the client's session went when it last left this shard. */
    MovedSessions moved() {
        return moved;
    }

    List<SessionEffect<C>> take() {
        if (pending.isEmpty()) return List.of();
        var taken = List.copyOf(pending);
        pending.clear();
        return taken;
    }
}
