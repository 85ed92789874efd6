package io.pekquitto.shards.listener;

import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * A PROXY protocol header as a load balancer sends it before the client's bytes (HAProxy's
 * proxy-protocol.txt): which version, and the client's address if it names one.
 *
 * @param version 1 (the text line) or 2 (binary)
 * @param source  the client's address and port; empty for v1 {@code UNKNOWN}, v2 {@code LOCAL} (the
 *                balancer's own health check), an {@code AF_UNIX} or unspecified family: the socket's
 *                own peer is the client then
 */
public record ProxyHeader(int version, Optional<InetSocketAddress> source) {

    /** The client's address: the header's source, else {@code socketPeer}, the address the socket connects from. */
    public InetSocketAddress clientAddress(InetSocketAddress socketPeer) {
        return source.orElse(socketPeer);
    }
}
