import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The floor of Netty 4.2 under the bench tool's connect-rate and latency scenarios: the least an MQTT
 * broker on Netty can do, next to {@code PekkoIoFloor}. One event loop ({@code MultiThreadIoEventLoopGroup}
 * of one thread, with epoll's or NIO's {@code IoHandler}) accepts and serves every socket (TCP_NODELAY),
 * with one handler per connection that frames MQTT packets (fixed header, variable-length Remaining Length,
 * packets up to 1 MiB). It answers CONNECT with CONNACK, SUBSCRIBE with SUBACK (granting what was asked),
 * a QoS 1 PUBLISH with PUBACK, PINGREQ with PINGRESP, and sends every PUBLISH, its bytes unchanged, to every
 * connection subscribed to exactly its topic (no wildcards; publisher and subscribers of one protocol level);
 * DISCONNECT closes. MQTT 3.1.1 and 5 (for 5, CONNACK and SUBACK carry an empty property length and PUBACK
 * is the short one, without a reason code). A turn's writes, to the socket
 * read and to subscribers, are flushed once, when the read is complete. No MQTT rule is checked: it only
 * measures what Netty itself costs. Netty's own defaults otherwise (4.2's adaptive allocator, auto-read).
 *
 *   java -cp NETTY_CLASS_PATH bench/floor/NettyFloor.java PORT epoll|nio
 *
 * NETTY_CLASS_PATH holds netty-common, -buffer, -resolver, -transport, -codec-base,
 * -transport-native-unix-common, -transport-classes-epoll and -transport-native-epoll (linux-x86_64),
 * 4.2.18.Final; {@code bench/floor/run-floor.sh} says how to make it from ~/.m2.
 */
public class NettyFloor {
    static final int MAX_PACKET = 1 << 20;

    /** Subscribers by exact topic. Only the one event loop's thread touches it, as all state here. */
    static final Map<String, Set<Channel>> subscribers = new HashMap<>();
    /** Other sockets written to during the current read; flushed when that read is complete. */
    static final Set<Channel> written = new LinkedHashSet<>();

    public static void main(String[] args) throws InterruptedException {
        int port = Integer.parseInt(args[0]);
        boolean epoll = switch (args.length > 1 ? args[1] : "epoll") {
            case "epoll" -> true;
            case "nio" -> false;
            default -> throw new IllegalArgumentException("epoll or nio, not " + args[1]);
        };
        if (epoll && !Epoll.isAvailable()) {
            throw new IllegalStateException("epoll is not available here", Epoll.unavailabilityCause());
        }
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> server = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        var loop = new MultiThreadIoEventLoopGroup(1, io);
        var bound = new ServerBootstrap()
                .group(loop)  // the listening socket and every connection on the one loop
                .channel(server)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        channel.pipeline().addLast(new MqttHandler());
                    }
                })
                .bind("127.0.0.1", port).sync().channel();
        System.out.println("floor listening on " + bound.localAddress() + " with " + (epoll ? "epoll" : "nio"));
        bound.closeFuture().sync();
    }

    /** One connection: frames its packets and answers each as it is framed. */
    static final class MqttHandler extends ByteToMessageDecoder {
        private boolean v5;
        private List<String> topics;  // what this connection subscribed to; null until it does

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            int start = in.readerIndex();
            int available = in.readableBytes();
            int length = 0;
            int at = start + 1;  // the Remaining Length: 7 bits a byte, least significant first, 4 bytes at most
            for (int shift = 0; ; shift += 7, at++) {
                if (at - start >= available) return;  // wait for more
                int b = in.getUnsignedByte(at);
                length |= (b & 0x7f) << shift;
                if ((b & 0x80) == 0) break;
                if (shift == 21) length = Integer.MAX_VALUE;  // a fifth byte: malformed
                if (length > MAX_PACKET) break;
            }
            if (length > MAX_PACKET) {
                in.skipBytes(available);
                ctx.close();
                return;
            }
            int body = at + 1;
            int size = body - start + length;
            if (available < size) return;
            handle(ctx, in, in.getUnsignedByte(start), start, body, size);
            in.readerIndex(start + size);  // ByteToMessageDecoder calls again while bytes remain
        }

        private void handle(ChannelHandlerContext ctx, ByteBuf in, int header, int start, int body, int size) {
            switch (header >> 4) {
                case 1 -> {  // CONNECT: protocol name, then the level (5 or 4)
                    v5 = in.getUnsignedByte(body + 2 + in.getUnsignedShort(body)) == 5;
                    ctx.write(v5 ? bytes(ctx, 0x20, 3, 0, 0, 0) : bytes(ctx, 0x20, 2, 0, 0));
                }
                case 3 -> {  // PUBLISH: topic, packet id at QoS > 0
                    int topicLength = in.getUnsignedShort(body);
                    if (((header >> 1) & 3) == 1) {
                        int id = body + 2 + topicLength;
                        ctx.write(bytes(ctx, 0x40, 2, in.getUnsignedByte(id), in.getUnsignedByte(id + 1)));
                    }
                    var to = subscribers.get(in.toString(body + 2, topicLength, StandardCharsets.UTF_8));
                    if (to == null) return;
                    for (var channel : to) {
                        channel.write(in.retainedSlice(start, size));
                        if (channel != ctx.channel()) written.add(channel);
                    }
                }
                case 8 -> subscribe(ctx, in, body, start + size);
                case 12 -> ctx.write(bytes(ctx, 0xD0, 0));  // PINGREQ
                case 14 -> ctx.close();  // DISCONNECT
                default -> { }  // PUBACK and the rest: nothing to do
            }
        }

        /** SUBSCRIBE: packet id, (5) properties, then topic filters each with its options; SUBACK grants them. */
        private void subscribe(ChannelHandlerContext ctx, ByteBuf in, int body, int end) {
            int at = body + 2;
            if (v5) at = afterProperties(in, at);
            var granted = new ArrayList<Integer>();
            while (at + 2 < end) {
                int length = in.getUnsignedShort(at);
                var topic = in.toString(at + 2, length, StandardCharsets.UTF_8);
                granted.add(Math.min(in.getUnsignedByte(at + 2 + length) & 3, 2));
                if (subscribers.computeIfAbsent(topic, t -> new LinkedHashSet<>()).add(ctx.channel())) {
                    if (topics == null) topics = new ArrayList<>(1);
                    topics.add(topic);
                }
                at += 3 + length;
            }
            int remaining = 2 + (v5 ? 1 : 0) + granted.size();
            var suback = ctx.alloc().buffer(5 + remaining).writeByte(0x90);
            for (int rest = remaining; ; ) {  // Remaining Length
                suback.writeByte(rest > 0x7f ? (rest & 0x7f) | 0x80 : rest);
                if ((rest >>= 7) == 0) break;
            }
            suback.writeShort(in.getUnsignedShort(body));
            if (v5) suback.writeByte(0);  // no properties
            for (int code : granted) suback.writeByte(code);
            ctx.write(suback);
        }

        /** The index after a property length (a variable byte integer) and the properties it counts. */
        private static int afterProperties(ByteBuf in, int at) {
            int length = 0;
            for (int shift = 0, b = 0x80; (b & 0x80) != 0 && shift < 28; shift += 7) {
                b = in.getUnsignedByte(at++);
                length |= (b & 0x7f) << shift;
            }
            return at + length;
        }

        private static ByteBuf bytes(ChannelHandlerContext ctx, int... values) {
            var buffer = ctx.alloc().buffer(values.length);
            for (int value : values) buffer.writeByte(value);
            return buffer;
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
            ctx.flush();
            for (var channel : written) channel.flush();
            written.clear();
            super.channelReadComplete(ctx);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            if (topics != null) {
                for (var topic : topics) {
                    var set = subscribers.get(topic);
                    set.remove(ctx.channel());
                    if (set.isEmpty()) subscribers.remove(topic);
                }
            }
            super.channelInactive(ctx);
        }
    }
}
