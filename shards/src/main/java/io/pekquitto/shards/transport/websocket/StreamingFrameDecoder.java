package io.pekquitto.shards.transport.websocket;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;

/**
 * A client's WebSocket frames (RFC 6455 5), read as they arrive: the payload of a binary message goes on
 * unmasked, as plain bytes, with each read that brings some, so that no frame is held whole before the
 * connection sees its bytes and the connection's own bounds (pre-CONNECT limits, the partial-packet
 * budget) count them as they come, as on TCP. Netty's decoder waits for a frame's last byte, up to
 * {@code max-packet-size}. What it holds is a header's fields and a control frame's payload (at most 125
 * bytes). A text message is not read: a {@link TextWebSocketFrame} with no content marks its start,
 * for {@link MqttOverWebSocketFrames} to refuse. A ping is answered with a pong; a close frame with a
 * close frame, then the socket closes (at once, if ours was sent first). A frame that breaks the
 * protocol (unmasked, reserved bits or opcodes, a long or fragmented control frame, a continuation with
 * nothing to continue, one larger than {@code max-packet-size}) ends the reading, and is told as a
 * {@link CorruptedWebSocketFrameException} with its close status (1002, or 1009 for its size).
 */
final class StreamingFrameDecoder extends ChannelDuplexHandler {
    /** The opcodes (RFC 6455 5.2). */
    static final int CONTINUATION = 0x0;
    static final int TEXT = 0x1;
    static final int BINARY = 0x2;
    static final int CLOSE = 0x8;
    static final int PING = 0x9;
    static final int PONG = 0xA;
    private static final int MAX_CONTROL_PAYLOAD = 125;

    private enum State { FIRST, SECOND, LENGTH, MASK, PAYLOAD, DONE }

    private final int maxPayload;
    private State state = State.FIRST;
    private boolean fin;
    private int opcode;
    /** The bytes of the extended payload length still to read, and how many it has (2 or 8, else 0). */
    private int lengthBytes;
    private int extendedLength;
    private long length;
    private int maskBytes;
    private int mask;
    /** The payload bytes of the frame still to come, and how many went by (where the mask stands). */
    private long remaining;
    private int unmasked;
    /** A data message is under way (a frame without FIN), and whether it is text. */
    private boolean inMessage;
    private boolean textMessage;
    /** A control frame's payload, gathered until its last byte; null if none. */
    private ByteBuf control;
    /** Our close frame went out: the client's answer ends the connection. */
    private boolean closeSent;

    /** @param maxPayload the largest frame payload a client may announce ({@code max-packet-size}) */
    StreamingFrameDecoder(int maxPayload) {
        this.maxPayload = maxPayload;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        if (!(message instanceof ByteBuf in)) {
            ctx.fireChannelRead(message);
            return;
        }
        try {
            while (in.isReadable() && state != State.DONE) {
                if (state == State.PAYLOAD) payload(ctx, in);
                else header(ctx, in.readByte());
            }
        } finally {
            in.release();
        }
    }

    private void header(ChannelHandlerContext ctx, byte b) {
        switch (state) {
            case FIRST -> {
                fin = (b & 0x80) != 0;
                opcode = b & 0x0F;
                if ((b & 0x70) != 0) fail(ctx, WebSocketCloseStatus.PROTOCOL_ERROR, "reserved bits set, and no extension agreed");
                else state = State.SECOND;
            }
            case SECOND -> second(ctx, b);
            case LENGTH -> {
                length = (length << 8) | (b & 0xFF);
                if (--lengthBytes == 0) lengthKnown(ctx);
            }
            case MASK -> {
                mask = (mask << 8) | (b & 0xFF);
                if (--maskBytes == 0) startPayload(ctx);
            }
            default -> throw new IllegalStateException("no header byte in " + state);
        }
    }

    private void second(ChannelHandlerContext ctx, byte b) {
        int shortLength = b & 0x7F;
        String broken = (b & 0x80) == 0 ? "an unmasked frame from the client"
                : opcode >= CLOSE ? controlFault(shortLength) : dataFault();
        if (broken != null) {
            fail(ctx, WebSocketCloseStatus.PROTOCOL_ERROR, broken);
            return;
        }
        extendedLength = shortLength == 126 ? 2 : shortLength == 127 ? 8 : 0;
        lengthBytes = extendedLength;
        length = extendedLength == 0 ? shortLength : 0;
        maskBytes = 4;
        mask = 0;
        if (extendedLength == 0) lengthKnown(ctx);
        else state = State.LENGTH;
    }

    private String controlFault(int shortLength) {
        if (opcode != CLOSE && opcode != PING && opcode != PONG) return "reserved control opcode " + opcode;
        if (!fin) return "a fragmented control frame";
        if (shortLength > MAX_CONTROL_PAYLOAD) return "a control frame of more than 125 bytes";
        return opcode == CLOSE && shortLength == 1 ? "a close frame of 1 byte" : null;
    }

    private String dataFault() {
        if (opcode != CONTINUATION && opcode != TEXT && opcode != BINARY) return "reserved data opcode " + opcode;
        if (opcode == CONTINUATION && !inMessage) return "a continuation frame with no message to continue";
        return opcode != CONTINUATION && inMessage ? "a new message inside a fragmented one" : null;
    }

    private void lengthKnown(ChannelHandlerContext ctx) {
        if (length < 0 || (extendedLength == 2 && length < 126) || (extendedLength == 8 && length < 65_536)) {
            fail(ctx, WebSocketCloseStatus.PROTOCOL_ERROR, "a payload length not in its shortest form");
        } else if (length > maxPayload) {
            fail(ctx, WebSocketCloseStatus.MESSAGE_TOO_BIG, "a frame of " + length + " bytes, more than " + maxPayload);
        } else {
            state = State.MASK;
        }
    }

    private void startPayload(ChannelHandlerContext ctx) {
        remaining = length;
        unmasked = 0;
        state = State.PAYLOAD;
        if (opcode >= CLOSE) {
            control = ctx.alloc().buffer((int) length);
        } else {
            if (opcode != CONTINUATION) {
                textMessage = opcode == TEXT;
                if (textMessage) ctx.fireChannelRead(new TextWebSocketFrame());  // its bytes are never read
            }
            inMessage = !fin;
        }
        if (remaining == 0) frameEnd(ctx);
    }

    /** As much of the payload as this read has. */
    private void payload(ChannelHandlerContext ctx, ByteBuf in) {
        int now = (int) Math.min(remaining, in.readableBytes());
        remaining -= now;
        if (control != null) {
            control.writeBytes(in, now);
        } else if (textMessage) {
            in.skipBytes(now);
        } else {
            var bytes = in.readRetainedSlice(now);
            unmask(bytes);
            ctx.fireChannelRead(bytes);
        }
        if (remaining == 0) frameEnd(ctx);
    }

    private void frameEnd(ChannelHandlerContext ctx) {
        state = State.FIRST;
        if (control == null) return;
        var payload = control;
        control = null;
        unmask(payload);
        switch (opcode) {
            case PING -> {
                if (closeSent) payload.release();
                else ctx.writeAndFlush(new PongWebSocketFrame(payload));
            }
            case CLOSE -> closed(ctx, payload);
            default -> payload.release();  // a pong: nothing to do
        }
    }

    /** The client's close frame: answered with one that says the same (unless ours went first), then the socket closes. */
    private void closed(ChannelHandlerContext ctx, ByteBuf payload) {
        if (payload.readableBytes() >= 2 && !WebSocketCloseStatus.isValidStatusCode(payload.getUnsignedShort(payload.readerIndex()))) {
            payload.release();
            fail(ctx, WebSocketCloseStatus.PROTOCOL_ERROR, "a close frame with an invalid status");
            return;
        }
        state = State.DONE;
        if (closeSent) {
            payload.release();
            ctx.close();
        } else {
            closeSent = true;
            ctx.writeAndFlush(new CloseWebSocketFrame(true, 0, payload)).addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** Unmasks {@code bytes} in place, the next of the frame's payload (RFC 6455 5.3): eight bytes at a time where it can. */
    private void unmask(ByteBuf bytes) {
        int at = bytes.readerIndex();
        int end = bytes.writerIndex();
        for (; at < end && (unmasked & 3) != 0; at++, unmasked++) unmaskByte(bytes, at);
        long wide = (mask & 0xFFFFFFFFL) | ((long) mask << 32);
        for (; at + 8 <= end; at += 8) bytes.setLong(at, bytes.getLong(at) ^ wide);
        for (; at < end; at++, unmasked++) unmaskByte(bytes, at);
    }

    private void unmaskByte(ByteBuf bytes, int at) {
        bytes.setByte(at, bytes.getByte(at) ^ (mask >>> (24 - 8 * (unmasked & 3))));
    }

    /** Nothing more is read: the client broke the protocol, and is told why by the close frame of {@code status}. */
    private void fail(ChannelHandlerContext ctx, WebSocketCloseStatus status, String why) {
        state = State.DONE;
        ctx.fireExceptionCaught(new CorruptedWebSocketFrameException(status, why));
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object message, ChannelPromise promise) {
        if (message instanceof CloseWebSocketFrame) closeSent = true;
        ctx.write(message, promise);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (control != null) control.release();
        control = null;
    }
}
