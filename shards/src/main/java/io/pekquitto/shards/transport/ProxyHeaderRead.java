package io.pekquitto.shards.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.haproxy.HAProxyMessage;

/**
 * Takes the PROXY header where Netty's decoder hands it on, before TLS and HTTP see the stream (their
 * handlers expect bytes or requests, not the header), gives its address to the connection's
 * {@link ChannelTransport}, and leaves the pipeline.
 */
final class ProxyHeaderRead extends ChannelInboundHandlerAdapter {
    private final ChannelTransport transport;

    ProxyHeaderRead(ChannelTransport transport) {
        this.transport = transport;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        if (!(message instanceof HAProxyMessage header)) {
            ctx.fireChannelRead(message);
            return;
        }
        try {
            transport.proxied(header);
        } finally {
            header.release();
        }
        ctx.pipeline().remove(this);
    }
}
