package io.pekquitto.shards;

import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.tcp.ReloadableTls;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Props;
import org.apache.pekko.io.Tcp;
import org.apache.pekko.io.TcpMessage;
import org.apache.pekko.io.TcpSO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One listener on Pekko IO in pull mode: binds, accepts a batch of connections at a time, and hands
 * each socket to a shard ({@link ShardPlacement}), whose sockets actor becomes its handler. No stream
 * is materialized per connection.
 */
final class TcpListener extends AbstractActor {
    /** Connections accepted per ResumeAccepting: bounds how many a storm of connects queues in this actor. */
    private static final int ACCEPT_BATCH = 16;
    private static final Logger LOG = LoggerFactory.getLogger(TcpListener.class);

    /** From the broker as it shuts down: close the listening socket, accept no more. */
    enum Unbind { INSTANCE }

    /** What every connection it accepts carries: the listener's rules. */
    private final Listener served;
    private final ShardPlacement placement;
    private final org.apache.pekko.actor.typed.ActorRef<Broker.Command> broker;
    private ActorRef listener;
    private int acceptsLeft;
    private Optional<ReloadableTls> tls = Optional.empty();

    static Props props(Listener listener, ShardPlacement placement, org.apache.pekko.actor.typed.ActorRef<Broker.Command> broker) {
        return Props.create(TcpListener.class, () -> new TcpListener(listener, placement, broker));
    }

    private TcpListener(Listener listener, ShardPlacement placement, org.apache.pekko.actor.typed.ActorRef<Broker.Command> broker) {
        this.served = listener;
        this.placement = placement;
        this.broker = broker;
    }

    @Override
    public void preStart() {
        tls = ListenerStart.readTls(served, broker);
        if (tls == null) {
            getContext().stop(getSelf());
            return;
        }
        var address = new InetSocketAddress(served.settings().host(), served.settings().port());
        Tcp.get(getContext().getSystem()).manager().tell(
                TcpMessage.bind(getSelf(), address, 1024, List.of(TcpSO.tcpNoDelay(true)), true), getSelf());
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(Tcp.Bound.class, bound -> {
                    listener = getSender();
                    broker.tell(new Broker.ListenerBound(served.index(), bound.localAddress(), tls));
                    resumeAccepting();
                })
                .match(Tcp.CommandFailed.class, failed -> {
                    broker.tell(ListenerStart.cannotBind(served, failed.causedByString()));
                    getContext().stop(getSelf());
                })
                .matchEquals(Unbind.INSTANCE, unbind -> {
                    if (listener != null) listener.tell(TcpMessage.unbind(), getSelf());
                })
                .match(Tcp.Unbound.class, unbound -> getContext().stop(getSelf()))
                .match(Tcp.Connected.class, connected -> {
                    if (served.connections().tryOpen()) {
                        // The certificate current now: a reload between two accepts applies from the second.
                        placement.next().tell(new Shard.Accept(getSender(), connected.remoteAddress(),
                                tls.map(ReloadableTls::current), served));
                    } else {
                        refuse(getSender(), connected.remoteAddress());
                    }
                    if (--acceptsLeft == 0) resumeAccepting();
                })
                .match(Tcp.ConnectionClosed.class, closed -> {})  // a refused connection's close, done
                .build();
    }

    /**
     * Over {@code max-connections}: closed before a byte is read (in pull mode nothing is read until a
     * handler asks) and counted refused by {@link io.pekquitto.shards.listener.ConnectionCount}.
     */
    private void refuse(ActorRef socket, InetSocketAddress remote) {
        socket.tell(TcpMessage.close(), getSelf());
        LOG.debug("[{}] refused on {}: max-connections [{}] reached", remote, served, served.settings().maxConnections());
    }

    private void resumeAccepting() {
        acceptsLeft = ACCEPT_BATCH;
        listener.tell(TcpMessage.resumeAccepting(ACCEPT_BATCH), getSelf());
    }
}
