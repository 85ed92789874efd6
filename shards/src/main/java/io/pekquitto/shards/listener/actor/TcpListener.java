package io.pekquitto.shards.listener.actor;

import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.tcp.ReloadableTls;
import io.pekquitto.shards.transport.AcceptedSocket;
import io.pekquitto.shards.transport.Acceptor;
import io.pekquitto.shards.transport.SocketKind;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One listener of any kind (MQTT over TCP or TLS, MQTT over WebSockets, ws or wss): an {@link Acceptor} on a
 * thread of its own, which hands each socket it accepts to a shard (the broker's {@code ShardPlacement}), where it is
 * registered on the shard's event loop with the pipeline of the listener's kind; or, with {@code reuse-port} and
 * epoll, one listening socket on each shard's loop, whose shard serves what it accepts without a thread between;
 * or, with one shard, its one listening socket on that shard's loop, without {@code SO_REUSEPORT}.
 * This actor only tells the broker how the bind went, and closes the listening sockets when told.
 */
public final class TcpListener extends AbstractActor {
    private static final Logger LOG = LoggerFactory.getLogger(TcpListener.class);

    private record Bound(InetSocketAddress address) {}

    private record BindFailed(Throwable cause) {}

    /** What every connection it accepts carries: the listener's rules. */
    private final Listener served;
    /** The shard for each new connection, one call per connection (on the accepting thread). */
    private final ConnectionPlacement placement;
    /** Each shard's dispatcher, in shard order: where a {@code reuse-port} listener's sockets are opened. */
    private final List<? extends Executor> shardDispatchers;
    private final org.apache.pekko.actor.typed.ActorRef<ListenerReport> broker;
    private Optional<ReloadableTls> tls = Optional.empty();
    private Acceptor acceptor;

    public static Props props(Listener listener, ConnectionPlacement placement, List<? extends Executor> shardDispatchers,
                              org.apache.pekko.actor.typed.ActorRef<ListenerReport> broker) {
        return Props.create(TcpListener.class, () -> new TcpListener(listener, placement, shardDispatchers, broker));
    }

    private TcpListener(Listener listener, ConnectionPlacement placement, List<? extends Executor> shardDispatchers,
                        org.apache.pekko.actor.typed.ActorRef<ListenerReport> broker) {
        this.served = listener;
        this.placement = placement;
        this.shardDispatchers = List.copyOf(shardDispatchers);
        this.broker = broker;
    }

    @Override
    public void preStart() {
        tls = ListenerStart.readTls(served, broker);
        if (tls == null) {
            getContext().stop(getSelf());
            return;
        }
        var settings = served.settings();
        var address = new InetSocketAddress(settings.host(), settings.port());
        var readTls = tls;
        boolean reusePort = settings.reusePort() && Acceptor.canListenOnEachShard();
        if (settings.reusePort() && !reusePort) {
            LOG.warn("{}: reuse-port needs the epoll transport, not {}: the port is not shared", served, SocketKind.chosen());
        }
        if (reusePort) {
            acceptor = Acceptor.listenOnEachShard(address, shardDispatchers,
                    (socket, shard) -> accepted(socket, readTls, () -> placement.acceptedBy(shard)));
        } else if (shardDispatchers.size() == 1) {  // no thread to cross to: the shard accepts, as with reuse-port
            acceptor = Acceptor.listenOnTheShard(address, shardDispatchers.get(0),
                    socket -> accepted(socket, readTls, () -> placement.acceptedBy(0)));
        } else {
            acceptor = Acceptor.listen(address, "pekquitto-listener-" + served.index(),
                    socket -> accepted(socket, readTls, placement::next));
        }
        var self = getSelf();
        acceptor.bound().whenComplete((local, failure) ->
                self.tell(failure == null ? new Bound(local) : new BindFailed(failure), ActorRef.noSender()));
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(Bound.class, bound -> broker.tell(new ListenerReport.Bound(served.index(), bound.address(), tls)))
                .match(BindFailed.class, failed -> {
                    broker.tell(ListenerStart.cannotBind(served, String.valueOf(failed.cause().getMessage())));
                    getContext().stop(getSelf());
                })
                .matchEquals(ListenerCommand.Unbind.INSTANCE, unbind -> getContext().stop(getSelf()))
                .build();
    }

    @Override
    public void postStop() {
        if (acceptor != null) acceptor.close();
    }

    /**
     * On the accepting thread (the listener's acceptor's, or with {@code reuse-port} the shard's own): a place in
     * {@code max-connections}, or closed before a byte is read and counted refused by
     * {@link io.pekquitto.shards.listener.ConnectionCount}.
     */
    private void accepted(AcceptedSocket socket, Optional<ReloadableTls> readTls,
                          Supplier<org.apache.pekko.actor.typed.ActorRef<ShardMessage>> shard) {
        if (served.connections().tryOpen()) {
            // The certificate current now: a reload between two accepts applies from the second.
            shard.get().tell(new ListenerRequest.Accept(socket, socket.remote(), readTls.map(ReloadableTls::current), served));
        } else {
            LOG.debug("[{}] refused on {}: max-connections [{}] reached", socket.remote(), served, served.settings().maxConnections());
            socket.refuse();
        }
    }
}
