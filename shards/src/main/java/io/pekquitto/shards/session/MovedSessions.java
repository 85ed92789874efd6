package io.pekquitto.shards.session;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where the sessions that left this shard went (docs/shards-and-mesh.md, A session crossing): a message sent on to this
 * shard for a client whose session has already left it (one forwarded by the shard the session was on before, or a
 * bounce) follows the session, instead of finding no one. Each shard's address points to where the session went after it was there, so following them only goes
 * forward; an address is forgotten when a session of the client is held here again. Bounded: such messages come soon
 * after the move or not at all.
 */
final class MovedSessions {
    static final int NOWHERE = -1;
    /** Addresses kept, past which the oldest are forgotten. */
    private static final int KEPT = 10_000;

    private final Map<String, Integer> movedTo = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
            return size() > KEPT;
        }
    };

    /** The client's session left for {@code shard}. */
    void left(String clientId, int shard) {
        movedTo.remove(clientId);  // the newest address is the last one forgotten
        movedTo.put(clientId, shard);
    }

    /** A session of the client is held here again. */
    void arrived(String clientId) {
        movedTo.remove(clientId);
    }

    /** The shard the client's session left for last, or {@link #NOWHERE}. */
    int whereTo(String clientId) {
        return movedTo.getOrDefault(clientId, NOWHERE);
    }
}
