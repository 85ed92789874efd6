package io.pekquitto.shards.session;

import java.util.ArrayList;
import java.util.List;

/** The effects decided during one call of the session rules, handed to the shard at its end. */
final class Effects<C> {
    private final ArrayList<SessionEffect<C>> pending = new ArrayList<>();

    void add(SessionEffect<C> effect) {
        pending.add(effect);
    }

    /** Send {@code message} to {@code shard}, possibly this one. */
    void transfer(int shard, SessionTransfer message) {
        pending.add(new SessionEffect.Transfer<>(shard, message));
    }

    List<SessionEffect<C>> take() {
        if (pending.isEmpty()) return List.of();
        var taken = List.copyOf(pending);
        pending.clear();
        return taken;
    }
}
