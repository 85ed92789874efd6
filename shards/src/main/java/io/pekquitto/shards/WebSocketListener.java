package io.pekquitto.shards;

import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.tcp.ReloadableTls;
import io.pekquitto.shards.websocket.WebSocketServer;
import io.pekquitto.shards.websocket.WebSocketStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.Props;
import org.apache.pekko.stream.javadsl.Tcp;
import org.apache.pekko.pattern.Patterns;

/**
 * One MQTT-over-WebSockets listener ({@code protocol = websocket}): Pekko HTTP's server on the listener's
 * address ({@link WebSocketServer}). Each accepted connection gets its shard ({@link ShardPlacement}) at
 * once, runs on its thread, and is handed to it as {@link Shard.AcceptWebSocket} once upgraded. Reports to
 * the broker as a {@link TcpListener} does, and closes its server socket on {@link TcpListener.Unbind}.
 */
final class WebSocketListener extends AbstractActor {
    private record Bound(Tcp.ServerBinding binding) {}

    private record BindFailed(Throwable cause) {}

    /** What every connection it accepts carries: the listener's rules. */
    private final Listener served;
    private final Duration connectTimeout;
    private final ShardPlacement placement;
    private final org.apache.pekko.actor.typed.ActorRef<Broker.Command> broker;
    private Optional<ReloadableTls> tls = Optional.empty();
    private Tcp.ServerBinding binding;

    /** @param connectTimeout how long a connection may take to upgrade, as to send CONNECT ({@code connect-timeout}) */
    static Props props(Listener listener, Duration connectTimeout, ShardPlacement placement,
                       org.apache.pekko.actor.typed.ActorRef<Broker.Command> broker) {
        return Props.create(WebSocketListener.class, () -> new WebSocketListener(listener, connectTimeout, placement, broker));
    }

    private WebSocketListener(Listener listener, Duration connectTimeout, ShardPlacement placement,
                              org.apache.pekko.actor.typed.ActorRef<Broker.Command> broker) {
        this.served = listener;
        this.connectTimeout = connectTimeout;
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
        var self = getSelf();
        var bound = WebSocketServer.bind(getContext().getSystem(), served, connectTimeout, tls,
                () -> new ShardPlace(placement, placement.nextIndex(), served));
        Patterns.pipe(bound.handle((binding, failure) -> failure == null ? new Bound(binding) : new BindFailed(failure)),
                getContext().getDispatcher()).to(self);
    }

    @Override
    public Receive createReceive() {
        return receiveBuilder()
                .match(Bound.class, bound -> {
                    binding = bound.binding();
                    broker.tell(new Broker.ListenerBound(served.index(), binding.localAddress(), tls));
                })
                .match(BindFailed.class, failed -> {
                    broker.tell(ListenerStart.cannotBind(served, failed.cause().getMessage()));
                    getContext().stop(getSelf());
                })
                .matchEquals(TcpListener.Unbind.INSTANCE, unbind -> {
                    if (binding == null) return;
                    // New requests are refused from now on; open WebSockets stay until the shards close them.
                    binding.unbind();
                    getContext().stop(getSelf());
                })
                .build();
    }

    /** A connection's shard, counted there from its acceptance: handed the WebSocket, or given back. */
    private record ShardPlace(ShardPlacement placement, int index, Listener served) implements WebSocketServer.Place {
        @Override
        public String dispatcher() {
            return Broker.dispatcherPath(index);
        }

        @Override
        public void upgraded(WebSocketStream stream, InetSocketAddress client, Optional<String> peerCommonName) {
            placement.shard(index).tell(new Shard.AcceptWebSocket(stream, client, peerCommonName, served));
        }

        @Override
        public void unused() {
            placement.released(index);
        }
    }
}
