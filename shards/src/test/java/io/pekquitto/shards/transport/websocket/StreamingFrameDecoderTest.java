package io.pekquitto.shards.transport.websocket;

import static io.pekquitto.shards.transport.websocket.StreamingFrameDecoder.BINARY;
import static io.pekquitto.shards.transport.websocket.StreamingFrameDecoder.CLOSE;
import static io.pekquitto.shards.transport.websocket.StreamingFrameDecoder.CONTINUATION;
import static io.pekquitto.shards.transport.websocket.StreamingFrameDecoder.PING;
import static io.pekquitto.shards.transport.websocket.StreamingFrameDecoder.PONG;
import static io.pekquitto.shards.transport.websocket.StreamingFrameDecoder.TEXT;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameEncoder;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * The client's frames read as they arrive, in an {@link EmbeddedChannel} with Netty's encoder before the
 * decoder as in a connection's pipeline: what reaches the next handler is the binary messages' bytes, unmasked,
 * with each write that brings some, however the frames are cut; control frames are answered; each breach of
 * RFC 6455 stops the reading with its close status.
 */
class StreamingFrameDecoderTest {
    private static final int MAX_PAYLOAD = 256 * 1024 * 1024;

    /** The largest buffer the decoder asked its allocator for. */
    private int largestAllocation;

    private EmbeddedChannel channel() {
        var channel = new EmbeddedChannel(new WebSocket13FrameEncoder(false), new StreamingFrameDecoder(MAX_PAYLOAD));
        channel.config().setAllocator(new AbstractByteBufAllocator() {
            @Override
            protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
                largestAllocation = Math.max(largestAllocation, initialCapacity);
                return Unpooled.buffer(initialCapacity, maxCapacity);
            }

            @Override
            protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
                return newHeapBuffer(initialCapacity, maxCapacity);
            }

            @Override
            public boolean isDirectBufferPooled() {
                return false;
            }
        });
        return channel;
    }

    /** A client's frame: masked with a random key, its length in the shortest form unless {@code lengthBytes} says 2 or 8. */
    private static byte[] frame(int firstByte, boolean masked, int lengthBytes, byte[] payload) {
        var out = new ByteArrayOutputStream();
        out.write(firstByte);
        int maskBit = masked ? 0x80 : 0;
        if (lengthBytes == 0 && payload.length < 126) {
            out.write(maskBit | payload.length);
        } else if (lengthBytes == 2 || (lengthBytes == 0 && payload.length < 65_536)) {
            out.write(maskBit | 126);
            out.write(payload.length >> 8);
            out.write(payload.length);
        } else {
            out.write(maskBit | 127);
            for (int shift = 56; shift >= 0; shift -= 8) out.write((int) ((long) payload.length >> shift));
        }
        var mask = new byte[4];
        if (masked) {
            ThreadLocalRandom.current().nextBytes(mask);
            out.writeBytes(mask);
        }
        for (int i = 0; i < payload.length; i++) out.write(payload[i] ^ mask[i % 4]);
        return out.toByteArray();
    }

    private static byte[] frame(int opcode, boolean fin, byte[] payload) {
        return frame((fin ? 0x80 : 0) | opcode, true, 0, payload);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(US_ASCII);
    }

    private static byte[] concat(byte[]... parts) {
        var out = new ByteArrayOutputStream();
        for (var part : parts) out.writeBytes(part);
        return out.toByteArray();
    }

    /** Every byte that reached the next handler, in order; fails on anything that is not bytes. */
    private static byte[] inbound(EmbeddedChannel channel) {
        var out = new ByteArrayOutputStream();
        for (Object read; (read = channel.readInbound()) != null; ) {
            var bytes = assertInstanceOf(ByteBuf.class, read);
            var array = new byte[bytes.readableBytes()];
            bytes.readBytes(array);
            bytes.release();
            out.writeBytes(array);
        }
        return out.toByteArray();
    }

    /** The server's next frame, as the client would read it: opcode and payload. */
    private static byte[] outboundFrame(EmbeddedChannel channel, int opcode) {
        var bytes = Unpooled.buffer();
        for (Object written; (written = channel.readOutbound()) != null; ) {
            var part = (ByteBuf) written;
            bytes.writeBytes(part);
            part.release();
        }
        assertEquals(0x80 | opcode, bytes.readUnsignedByte());
        int length = bytes.readUnsignedByte();
        assertTrue(length < 126, "a control frame");
        var payload = new byte[length];
        bytes.readBytes(payload);
        assertFalse(bytes.isReadable(), "one frame");
        return payload;
    }

    @Test
    void aFragmentedMessageWithAPingBetweenItsFramesArrivesWholeHoweverTheBytesAreCut() {
        var large = new byte[70_000];
        ThreadLocalRandom.current().nextBytes(large);
        var stream = concat(
                frame(BINARY, false, ascii("hello, ")),
                frame(PING, true, ascii("are you there")),
                frame(CONTINUATION, false, new byte[0]),
                frame(CONTINUATION, true, ascii("world")),
                frame(BINARY, true, large),
                frame(PONG, true, ascii("unasked")));
        var expected = concat(ascii("hello, world"), large);
        for (int cut = 0; cut <= stream.length; cut += cut < 200 || cut > stream.length - 200 ? 1 : 997) {
            var channel = channel();
            channel.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(stream, 0, cut)));
            channel.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(stream, cut, stream.length)));
            assertArrayEquals(expected, inbound(channel), "cut at " + cut);
            assertArrayEquals(ascii("are you there"), outboundFrame(channel, PONG), "cut at " + cut);
            channel.checkException();
        }
    }

    @Test
    void framesSentOneByteAtATimeArriveOneByteAtATime() {
        var stream = concat(frame(BINARY, false, ascii("0123456789")), frame(PING, true, ascii("p")),
                frame(CONTINUATION, true, new byte[300]));
        var channel = channel();
        int forwarded = 0;
        for (byte b : stream) {
            channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
            forwarded += inbound(channel).length;
        }
        assertEquals(310, forwarded);
        assertArrayEquals(ascii("p"), outboundFrame(channel, PONG));
    }

    @Test
    void aHundredMegabyteFramesFirstBytesArriveAsTheyComeAndNothingIsAllocatedForItsLength() {
        var channel = channel();
        var header = Arrays.copyOf(frame(0x80 | BINARY, true, 8, new byte[0]), 14);
        long announced = 100L * 1024 * 1024;
        for (int i = 0; i < 8; i++) header[2 + i] = (byte) (announced >> (56 - 8 * i));
        header[10] = 0x11;  // the mask: 0x11223344
        header[11] = 0x22;
        header[12] = 0x33;
        header[13] = 0x44;
        channel.writeInbound(Unpooled.wrappedBuffer(header));
        assertArrayEquals(new byte[0], inbound(channel), "nothing yet");
        channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {0x11 ^ 0x10, 0x22 ^ 0x0c, 0x33}));
        assertArrayEquals(new byte[] {0x10, 0x0c, 0x00}, inbound(channel), "a CONNECT's first bytes, as they came");
        channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {0x44 ^ 0x04, 0x11 ^ 'M'}));
        assertArrayEquals(new byte[] {0x04, 'M'}, inbound(channel), "the mask goes on where it stood");
        assertTrue(largestAllocation < 1024, "allocated at most " + largestAllocation + " bytes");
        channel.checkException();
    }

    @Test
    void aTextMessageIsMarkedAndItsBytesAreNotRead() {
        var channel = channel();
        channel.writeInbound(Unpooled.wrappedBuffer(concat(frame(TEXT, false, ascii("not")), frame(CONTINUATION, true, ascii(" MQTT")),
                frame(BINARY, true, ascii("after")))));
        var marker = assertInstanceOf(TextWebSocketFrame.class, channel.readInbound());
        assertFalse(marker.content().isReadable());
        marker.release();
        assertArrayEquals(ascii("after"), inbound(channel));
    }

    @Test
    void theClientsCloseIsAnsweredWithItsStatusThenTheSocketCloses() {
        var channel = channel();
        channel.writeInbound(Unpooled.wrappedBuffer(concat(frame(CLOSE, true, new byte[] {0x03, (byte) 0xE9}),
                frame(BINARY, true, ascii("too late")))));
        assertArrayEquals(new byte[] {0x03, (byte) 0xE9}, outboundFrame(channel, CLOSE));
        assertFalse(channel.isOpen());
        assertNull(channel.readInbound(), "nothing read after the close");
    }

    @Test
    void theClientsCloseAfterOursClosesTheSocketWithoutAnotherFrame() {
        var channel = channel();
        channel.writeOutbound(new CloseWebSocketFrame(1000, "Bye"));
        outboundFrame(channel, CLOSE);
        channel.writeInbound(Unpooled.wrappedBuffer(frame(PING, true, ascii("late")))); // no pong once closing
        channel.writeInbound(Unpooled.wrappedBuffer(frame(CLOSE, true, new byte[] {0x03, (byte) 0xE8})));
        assertNull(channel.readOutbound());
        assertFalse(channel.isOpen());
    }

    @Test
    void eachBreachOfTheProtocolStopsTheReadingWithItsCloseStatus() {
        assertBreach(1002, frame(0x80 | BINARY, false, 0, ascii("unmasked")));
        assertBreach(1002, frame(0x80 | 0x40 | BINARY, true, 0, ascii("rsv1")));
        assertBreach(1002, frame(0x80 | 0x3, true, 0, ascii("reserved data opcode")));
        assertBreach(1002, frame(0x80 | 0xB, true, 0, ascii("reserved control opcode")));
        assertBreach(1002, frame(PING, true, new byte[126]));
        assertBreach(1002, frame(PING, false, ascii("fragmented")));
        assertBreach(1002, frame(CLOSE, true, new byte[] {0x03}));
        assertBreach(1002, frame(CLOSE, true, new byte[] {0x00, 0x00}));  // status 0
        assertBreach(1002, frame(CONTINUATION, true, ascii("nothing to continue")));
        assertBreach(1002, concat(frame(BINARY, false, ascii("a")), frame(BINARY, true, ascii("b"))));
        assertBreach(1002, frame(0x80 | BINARY, true, 2, ascii("short in a long length")));
        assertBreach(1002, frame(0x80 | BINARY, true, 8, new byte[200]));
        var tooLarge = new byte[] {(byte) (0x80 | BINARY), (byte) (0x80 | 127), 0, 0, 0, 0, 0x10, 0, 0, 1, 0, 0, 0, 0};
        assertBreach(1009, tooLarge);  // 256 MiB + 1
        var negative = new byte[] {(byte) (0x80 | BINARY), (byte) (0x80 | 127), (byte) 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        assertBreach(1002, negative);
    }

    /** {@code bytes} then a good frame: the reading stops at the breach, with {@code status}. */
    private void assertBreach(int status, byte[] bytes) {
        var channel = channel();
        var failure = assertThrows(CorruptedWebSocketFrameException.class,
                () -> channel.writeInbound(Unpooled.wrappedBuffer(concat(bytes, frame(BINARY, true, ascii("after"))))));
        assertEquals(status, failure.closeStatus().code(), () -> "status for " + Arrays.toString(bytes));
        inbound(channel);  // what came before the breach, if anything
        channel.writeInbound(Unpooled.wrappedBuffer(frame(BINARY, true, ascii("later"))));
        assertArrayEquals(new byte[0], inbound(channel), "nothing read after the breach");
        assertNull(channel.readOutbound(), "the close frame is the transport's to send");
    }
}
