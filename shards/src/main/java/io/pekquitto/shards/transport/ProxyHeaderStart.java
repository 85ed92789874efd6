package io.pekquitto.shards.transport;

import static java.nio.charset.StandardCharsets.US_ASCII;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.haproxy.HAProxyProtocolException;

/**
 * Stands before Netty's PROXY header decoder and refuses a connection whose first bytes cannot begin a
 * header as soon as they arrive: the decoder itself waits for 13 bytes, and for a line of 108, before it
 * finds that a client without one (one past the balancer, straight to MQTT) sent none. Once the bytes
 * read begin either version's signature, it leaves the pipeline to the decoder.
 */
final class ProxyHeaderStart extends ChannelInboundHandlerAdapter {
    private static final byte[] V1 = "PROXY ".getBytes(US_ASCII);
    private static final byte[] V2 = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};

    /** How many of the connection's first bytes have been checked, over all reads so far. */
    private int checked;
    private boolean couldBeV1 = true;
    private boolean couldBeV2 = true;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        var bytes = (ByteBuf) message;
        for (int i = bytes.readerIndex(); i < bytes.writerIndex() && checked < V2.length; i++, checked++) {
            byte b = bytes.getByte(i);
            couldBeV1 &= checked >= V1.length || V1[checked] == b;
            couldBeV2 &= V2[checked] == b;
        }
        if (!couldBeV1 && !couldBeV2) {
            bytes.release();
            throw new HAProxyProtocolException("the connection does not begin with a PROXY protocol header");
        }
        if (couldBeV1 && checked >= V1.length || checked >= V2.length) ctx.pipeline().remove(this);
        ctx.fireChannelRead(bytes);
    }
}
