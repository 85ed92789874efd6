package io.pekquitto.shards.websocket;

import io.pekquitto.shards.connection.Connection;
import io.pekquitto.shards.connection.ConnectionRef;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.util.ByteString;

/**
 * The WebSocket connections of one shard, on the shard's thread: the streams answer in their own actors'
 * turns (on this thread too: each runs on its shard's dispatcher), and this actor hands each answer to its
 * {@link WebSocketTransport} in the shard's turn, where the transport may tell its connection, live or
 * parked, through the shard's {@link ConnectionRef}.
 * Spawned by the shard with its first WebSocket connection.
 */
public final class ShardWebSockets {
    private ShardWebSockets() {}

    /** What this actor hears. */
    public sealed interface Event {}

    /** A WebSocket accepted for this shard and the connection that serves it. */
    public record Adopt(WebSocketStream stream, InetSocketAddress client, Optional<String> peerCommonName,
                        ConnectionRef connection) implements Event {}

    record Pulled(WebSocketTransport transport, Optional<ByteString> chunk) implements Event {}

    record Written(WebSocketTransport transport) implements Event {}

    record Ended(WebSocketTransport transport, String cause) implements Event {}

    /** Spawn it on the shard's dispatcher: its transports are used by the shard's connection actors. */
    public static Behavior<Event> create() {
        return Behaviors.receive((context, event) -> {
            if (event instanceof Adopt adopt) {
                var self = context.getSelf();  // the stream's threads must not touch the context
                var transport = new WebSocketTransport(adopt.stream(), self, adopt.connection(), adopt.client(),
                        adopt.peerCommonName());
                adopt.stream().whenEnded((done, failure) -> self.tell(
                        new Ended(transport, adopt.stream().endedBecause(failure))));
                adopt.connection().tell(new Connection.TransportReady(transport));
            } else if (event instanceof Pulled pulled) {
                pulled.transport().pulled(pulled.chunk());
            } else if (event instanceof Written written) {
                written.transport().written();
            } else if (event instanceof Ended ended) {
                ended.transport().ended(ended.cause());
            } else {
                throw new IllegalStateException("unhandled WebSocket event " + event);  // a new variant is handled here
            }
            return Behaviors.same();
        });
    }
}
