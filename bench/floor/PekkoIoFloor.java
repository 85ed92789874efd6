import com.typesafe.config.ConfigFactory;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.Props;
import org.apache.pekko.io.Tcp;
import org.apache.pekko.io.TcpMessage;
import org.apache.pekko.io.TcpSO;
import org.apache.pekko.util.ByteString;

/**
 * The floor of Pekko IO under the bench tool's connect-rate and latency scenarios: the least an MQTT
 * broker on Pekko IO can do, set up as pekquitto's one shard is (pull mode, one handler actor for all
 * sockets, Pekko IO's actors and the handler on one thread that spins before it parks). It answers
 * CONNECT with CONNACK, SUBSCRIBE with SUBACK, a QoS 1 PUBLISH with PUBACK, and sends every PUBLISH to
 * every connection that subscribed, whatever the topic; DISCONNECT closes. No MQTT rule is checked:
 * it only measures what Pekko IO itself costs. Packets must be under 128 bytes.
 *
 *   java -cp ops/target/pekquitto.jar bench/floor/PekkoIoFloor.java PORT
 */
public class PekkoIoFloor {
    public static void main(String[] args) {
        int port = Integer.parseInt(args[0]);
        var config = ConfigFactory.parseString("""
                shard { type = Dispatcher, executor = "io.pekquitto.shards.dispatch.SpinThenParkExecutorConfigurator",
                        spin-then-park.spin = 100us, throughput = 64 }
                pekko.io.tcp.worker-dispatcher = shard
                pekko.loglevel = WARNING
                """).withFallback(ConfigFactory.load());
        var system = ActorSystem.create("floor", config);
        system.actorOf(Props.create(Listener.class, () -> new Listener(port)).withDispatcher("shard"));
    }

    record Adopt(ActorRef socket) {}

    static final class Listener extends AbstractActor {
        private final int port;
        private ActorRef listener;
        private ActorRef handler;
        private int acceptsLeft;

        Listener(int port) {
            this.port = port;
        }

        @Override
        public void preStart() {
            handler = getContext().actorOf(Props.create(Handler.class, Handler::new).withDispatcher("shard"));
            Tcp.get(getContext().getSystem()).manager().tell(TcpMessage.bind(getSelf(),
                    new InetSocketAddress("127.0.0.1", port), 1024, List.of(TcpSO.tcpNoDelay(true)), true), getSelf());
        }

        @Override
        public Receive createReceive() {
            return receiveBuilder()
                    .match(Tcp.Bound.class, bound -> {
                        listener = getSender();
                        resumeAccepting();
                        System.out.println("floor listening on " + bound.localAddress());
                    })
                    .match(Tcp.Connected.class, connected -> {
                        handler.tell(new Adopt(getSender()), getSelf());
                        if (--acceptsLeft == 0) resumeAccepting();
                    })
                    .build();
        }

        private void resumeAccepting() {
            acceptsLeft = 16;
            listener.tell(TcpMessage.resumeAccepting(16), getSelf());
        }
    }

    static final class Handler extends AbstractActor {
        private static final ByteString CONNACK = bytes(0x20, 2, 0, 0);
        private final Map<ActorRef, ByteString> partial = new HashMap<>();
        private final Set<ActorRef> subscribers = new HashSet<>();

        private static ByteString bytes(int... values) {
            var array = new byte[values.length];
            for (int i = 0; i < values.length; i++) array[i] = (byte) values[i];
            return ByteString.fromArray(array);
        }

        @Override
        public Receive createReceive() {
            return receiveBuilder()
                    .match(Adopt.class, adopt -> {
                        partial.put(adopt.socket(), ByteString.emptyByteString());
                        adopt.socket().tell(TcpMessage.register(getSelf(), false, false), getSelf());
                        adopt.socket().tell(TcpMessage.resumeReading(), getSelf());
                    })
                    .match(Tcp.Received.class, received -> read(getSender(), received.data()))
                    .match(Tcp.ConnectionClosed.class, closed -> {
                        partial.remove(getSender());
                        subscribers.remove(getSender());
                    })
                    .build();
        }

        private void read(ActorRef socket, ByteString data) {
            var bytes = partial.getOrDefault(socket, ByteString.emptyByteString()).concat(data);
            boolean close = false;
            while (bytes.size() >= 2 && bytes.size() >= 2 + (bytes.apply(1) & 0x7f)) {
                int length = bytes.apply(1) & 0x7f;
                int header = bytes.apply(0) & 0xff;
                var packet = bytes.take(2 + length);
                switch (header >> 4) {
                    case 1 -> socket.tell(TcpMessage.write(CONNACK), getSelf());
                    case 3 -> {
                        int qos = (header >> 1) & 3;
                        if (qos == 1) {
                            int topicLength = ((packet.apply(2) & 0xff) << 8) | (packet.apply(3) & 0xff);
                            int id = 4 + topicLength;
                            socket.tell(TcpMessage.write(bytes(0x40, 2, packet.apply(id) & 0xff, packet.apply(id + 1) & 0xff)), getSelf());
                        }
                        for (var subscriber : subscribers) subscriber.tell(TcpMessage.write(packet), getSelf());
                    }
                    case 8 -> {
                        subscribers.add(socket);
                        socket.tell(TcpMessage.write(bytes(0x90, 3, packet.apply(2) & 0xff, packet.apply(3) & 0xff, 1)), getSelf());
                    }
                    case 12 -> socket.tell(TcpMessage.write(bytes(0xD0, 0)), getSelf());
                    case 14 -> close = true;
                    default -> { }  // PUBACK and the rest: nothing to do
                }
                bytes = bytes.drop(2 + length);
            }
            partial.put(socket, bytes);
            socket.tell(close ? TcpMessage.close() : TcpMessage.resumeReading(), getSelf());
        }
    }
}
