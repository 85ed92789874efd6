package io.pekquitto.shards.session;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Deliveries in transit when a connection lets its session go. The shard may have sent messages to
 * the connection after the connection released its session and before the shard read the release;
 * the connection sends those back (bounces them) until it has seen the shard confirm the release,
 * and then says it has drained. Until then, new messages for the client wait here, so that none is
 * lost and the order holds: first what was never sent, then what bounced, then what waited.
 */
public final class ReleaseDraining<C> {
    /** No shard: the session did not move. */
    public static final int NOT_MOVED = -1;

    /** What a drained connection leaves to deliver again, in order, and where its session went. */
    public record Drained(String clientId, List<Message> messages, int movedTo) {}

    private static final class Draining {
        final String clientId;
        final List<Message> bounced = new ArrayList<>();
        final List<Message> held = new ArrayList<>();
        int movedTo = NOT_MOVED;

        Draining(String clientId) {
            this.clientId = clientId;
        }
    }

    private final Map<C, Draining> byConnection = new HashMap<>();
    private final Map<String, Draining> byClient = new HashMap<>();

    /** The connection released its session; {@code unsent} were batched for it and never left. */
    public void started(C connection, String clientId, List<Message> unsent) {
        var draining = new Draining(clientId);
        draining.bounced.addAll(unsent);
        byConnection.put(connection, draining);
        byClient.put(clientId, draining);
    }

    /** A message the released connection sent back. */
    public void bounced(C connection, Message message) {
        var draining = byConnection.get(connection);
        if (draining != null) draining.bounced.add(message);
    }

    /** Keeps a new message for a client whose connection is draining; false if it is not. */
    public boolean hold(String clientId, Message message) {
        var draining = byClient.get(clientId);
        if (draining == null) return false;
        draining.held.add(message);
        return true;
    }

    /** The client's session left for another shard while its connection drains: the messages follow it. */
    public void movedTo(String clientId, int shard) {
        var draining = byClient.get(clientId);
        if (draining != null) draining.movedTo = shard;
    }

    /** The connection has drained (or stopped): what to deliver again, or null if it was not draining. */
    public Drained finish(C connection) {
        var draining = byConnection.remove(connection);
        if (draining == null) return null;
        byClient.remove(draining.clientId, draining);
        var messages = new ArrayList<Message>(draining.bounced.size() + draining.held.size());
        messages.addAll(draining.bounced);
        messages.addAll(draining.held);
        return new Drained(draining.clientId, messages, draining.movedTo);
    }
}
