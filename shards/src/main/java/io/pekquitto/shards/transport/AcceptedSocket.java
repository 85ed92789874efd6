package io.pekquitto.shards.transport;

import io.netty.channel.Channel;
import java.net.InetSocketAddress;

/**
 * A socket a listener accepted and registered on no loop yet: a shard serves it ({@link ShardChannels#adopt}),
 * registered on the shard's loop, or it is refused, closed before a byte is read.
 */
public final class AcceptedSocket {
    private final Channel channel;

    AcceptedSocket(Channel channel) {
        this.channel = channel;
    }

    Channel channel() {
        return channel;
    }

    /** The address it connects from (a PROXY header may name the client's own later). */
    public InetSocketAddress remote() {
        return (InetSocketAddress) channel.remoteAddress();
    }

    /** Closes it unread: over {@code max-connections}, or accepted by a shard that is shutting down. */
    public void refuse() {
        channel.unsafe().closeForcibly();
    }
}
