package io.pekquitto.shards.connection;

import org.apache.pekko.actor.typed.ActorRef;

/** Connection handles for tests whose connection is a probe or a plain actor, which never parks. */
public final class TestConnections {
    private TestConnections() {}

    /** A live connection served by {@code actor}; resuming it is a test failure. */
    public static ConnectionRef servedBy(ActorRef<Connection.Command> actor) {
        var connection = unbound();
        connection.bind(actor);
        return connection;
    }

    /** A connection whose actor is bound once spawned; resuming it is a test failure. */
    public static ConnectionRef unbound() {
        return new ConnectionRef(ref -> {
            throw new AssertionError("this test's connection cannot resume: " + ref.parked().clientId());
        });
    }
}
