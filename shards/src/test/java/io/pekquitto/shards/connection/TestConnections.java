package io.pekquitto.shards.connection;

import io.pekquitto.auth.ClientIdentity;
import io.pekquitto.auth.Security;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.settings.ListenerSettings;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
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

    /**
     * A new connection from {@code listener} with {@code environment}, told that {@code transport} is ready:
     * it waits for the client's CONNECT without an actor ({@link PreConnect}), and {@code testKit} spawns its
     * actor once the CONNECT is whole, and again from its parked state when it resumes. Tell it through the
     * returned handle, as the shard does.
     */
    public static ConnectionRef accepted(ActorTestKit testKit, ShardEnvironment environment,
                                         ActorRef<ShardRequest> shard, Listener listener, Transport transport) {
        var connection = new ConnectionRef(ref -> ref.resumed(testKit.spawn(ref.parked() == null
                ? Connection.afterConnect(environment, shard, ref) : Connection.resume(environment, shard, ref, ref.parked()))));
        connection.awaitConnect(new PreConnect(environment, shard, connection, listener));
        if (environment.clock() instanceof ManualClock clock) clock.watch(connection);  // it plays the shard's deadline queue
        connection.tell(new Connection.TransportReady(transport));
        return connection;
    }

    /** A listener that accepts every version, without a limit or a PROXY header. */
    public static final Listener ANY_LISTENER = Listener.of(0, new ListenerSettings("127.0.0.1", 0));

    /** An anonymous client as the ACLs see it. */
    public static final ClientIdentity CLIENT = new ClientIdentity("c", Optional.empty(), new InetSocketAddress("127.0.0.1", 1));

    /** A shard's environment for tests: no authentication, no ACLs. */
    public static ShardEnvironment environment(BrokerSettings settings, LongSupplier clock) {
        return ShardEnvironment.of(settings, Security.OPEN, clock);
    }
}
