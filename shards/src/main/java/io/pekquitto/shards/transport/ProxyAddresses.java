package io.pekquitto.shards.transport;

import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/** The client's address as a PROXY protocol header (v1 or v2) names it. */
final class ProxyAddresses {
    private ProxyAddresses() {}

    /**
     * The header's source address, or {@code socketPeer} when it names none: v1 {@code UNKNOWN}, v2
     * {@code LOCAL} (the balancer's own health check), {@code AF_UNIX} or an unspecified family.
     */
    static InetSocketAddress clientAddress(HAProxyMessage header, InetSocketAddress socketPeer) {
        if (header.command() == HAProxyCommand.LOCAL || header.sourceAddress() == null) return socketPeer;
        var family = header.proxiedProtocol().addressFamily();
        if (family != HAProxyProxiedProtocol.AddressFamily.AF_IPv4 && family != HAProxyProxiedProtocol.AddressFamily.AF_IPv6) {
            return socketPeer;
        }
        try {
            // A literal address, as the decoder checked it: no name is looked up.
            return new InetSocketAddress(InetAddress.getByName(header.sourceAddress()), header.sourcePort());
        } catch (UnknownHostException e) {
            return socketPeer;
        }
    }
}
