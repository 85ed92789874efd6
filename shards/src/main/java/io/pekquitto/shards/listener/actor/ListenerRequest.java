package io.pekquitto.shards.listener.actor;

import io.pekquitto.shards.connection.ShardMessage;
import io.pekquitto.shards.listener.Listener;
import io.pekquitto.shards.tcp.ListenerTls;
import io.pekquitto.shards.transport.AcceptedSocket;
import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * What a listener asks of a shard. Declared with the listener, as {@link io.pekquitto.shards.connection.ShardRequest}
 * is with the connection, so that the listener sends to a shard without knowing the shard's class.
 */
public sealed interface ListenerRequest extends ShardMessage {

    /** A new connection from {@code listener} (TCP, TLS, WebSocket), to be served by this shard. */
    record Accept(AcceptedSocket socket, InetSocketAddress remote, Optional<ListenerTls> tls,
                  Listener listener) implements ListenerRequest {}
}
