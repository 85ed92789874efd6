package io.pekquitto.bench;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** The command line: {@code <scenario> [--name value | --flag]...}. */
final class Options {

    static final Set<String> SCENARIOS = Set.of("fanin", "fanout", "latency", "idle", "connect-rate", "takeover");
    private static final Set<String> FLAGS = Set.of("json", "mqtt5", "help", "jcmd", "tls", "ws", "persistent-subscribers");
    private static final Set<String> VALUED = Set.of(
            "host", "port", "threads", "duration", "messages", "publishers", "subscribers", "qos", "payload",
            "inflight", "connections", "hold", "broker-pid", "concurrency", "warmup", "keepalive", "drain", "label", "max-lag",
            "slow-subscribers", "subscription-churn", "cafile", "websocket", "subscriber-port", "takeovers");

    static final String USAGE = """
            Usage: java -jar pekquitto-bench.jar <scenario> [options]

            Scenarios:
              fanin         P publishers (distinct topics) -> S subscribers on the covering wildcard; msgs/s
              fanout        1 publisher -> N subscribers on one topic; deliveries/s
              latency       QoS 1 round trips: PUBLISH->PUBACK and publish->delivery, p50/p90/p99/max in us
              idle          open N connections, CONNECT each, hold; connects/s and broker RSS per connection
              connect-rate  connect + CONNACK + DISCONNECT in a loop; connects/s
              takeover      one persistent session taken over again and again, alternately on --port and
                            --subscriber-port; socket open -> CONNACK p50/p90/p99/max in us

            Options (defaults in brackets):
              --host H            broker address [127.0.0.1]
              --port N            broker port [1883]
              --subscriber-port N subscribers connect here (another node of a cluster, say) [--port]
              --threads N         selector threads [1]
              --duration S        seconds of load, decimals allowed [10]
              --messages N        per publisher (fanin/fanout; 0 = until --duration) or round trips (latency) [0 / 10000]
              --publishers N      fanin publishers [10]
              --subscribers N     fanin [2] / fanout [100] subscribers
              --qos 0|1|2         publish and subscribe QoS [0]
              --payload N         payload bytes, at least 12 (publisher id + sequence) [32]
              --inflight N        unacknowledged QoS 1/2 messages per publisher [16]
              --max-lag N         publishers stay at most N messages ahead of the slowest subscriber
                                  (end-to-end flow control, so broker queue limits are not hit) [0 = off]
              --slow-subscribers K
                                  fanin/fanout: K more subscribers on the same filter that never read their
                                  socket after SUBACK (small receive buffer, no acks), a stuck consumer;
                                  they are not counted in received, lost or --max-lag [0]
              --subscription-churn N
                                  fanin/fanout: one more client SUBSCRIBEs and UNSUBSCRIBEs filters no
                                  publisher uses, N changes a second [0]
              --persistent-subscribers
                                  fanin/fanout: subscribers keep their sessions (3.1.1 Clean Session 0; 5.0
                                  Session Expiry 1 h), so a broker with a store writes what they get
              --drain S           seconds to wait for the last deliveries after publishing stops [10]
              --warmup N          latency round trips not measured [1000]
              --connections N     idle connections [10000]
              --hold S            idle: seconds to hold the connections [5]
              --broker-pid PID    idle: read the broker's VmRSS from /proc/PID/status before and after;
                                  connect-rate: its CPU time per connect, from /proc/PID/stat
              --jcmd              idle, JVM broker: full GC (jcmd PID GC.run) and read its live heap before and after
              --concurrency N     connects in progress at once: idle [64], connect-rate [8]
              --takeovers N       takeover: how many [200]
              --keepalive S       CONNECT keep-alive [60]
              --mqtt5             CONNECT as MQTT 5.0 (default 3.1.1)
              --tls               MQTT over TLS 1.3/1.2 (JDK SSLEngine), a full handshake per connection
              --cafile FILE       with --tls: trust the CA certificates in this PEM file [trust any: benchmark only]
              --websocket PATH    MQTT over WebSockets at this HTTP path (subprotocol mqtt, masked binary
                                  frames; with --tls, wss); every connection upgrades first
              --ws                the same as --websocket /mqtt
              --label TEXT        a name echoed in the output (e.g. the broker's)
              --json              also print the result as one JSON line

            Exit status: 0 done; 1 usage or connection error; 2 QoS 1/2 messages lost.
            """;

    final String scenario;
    private final Map<String, String> values = new HashMap<>();
    private final Set<String> flags = new java.util.HashSet<>();

    private Options(String scenario) {
        this.scenario = scenario;
    }

    static Options parse(String... args) {
        if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help")) throw new UsageException(null);
        var options = new Options(args[0]);
        if (!SCENARIOS.contains(args[0])) throw new UsageException("unknown scenario " + args[0]);
        for (int i = 1; i < args.length; i++) {
            var arg = args[i];
            if (!arg.startsWith("--")) throw new UsageException("unexpected argument " + arg);
            var name = arg.substring(2);
            if (FLAGS.contains(name)) {
                options.flags.add(name);
            } else if (VALUED.contains(name)) {
                if (i + 1 >= args.length) throw new UsageException("option " + arg + " needs a value");
                options.values.put(name, args[++i]);
            } else {
                throw new UsageException("unknown option " + arg);
            }
        }
        if (options.flag("help")) throw new UsageException(null);
        return options;
    }

    boolean flag(String name) {
        return flags.contains(name);
    }

    String string(String name, String otherwise) {
        return values.getOrDefault(name, otherwise);
    }

    int integer(String name, int otherwise, int min, int max) {
        var text = values.get(name);
        if (text == null) return otherwise;
        try {
            int value = Integer.parseInt(text.replace("_", ""));
            if (value < min || value > max) throw new UsageException("--" + name + " must be in " + min + ".." + max + ": " + text);
            return value;
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " is not a number: " + text);
        }
    }

    long longValue(String name, long otherwise) {
        var text = values.get(name);
        if (text == null) return otherwise;
        try {
            long value = Long.parseLong(text.replace("_", ""));
            if (value < 0) throw new UsageException("--" + name + " must not be negative: " + text);
            return value;
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " is not a number: " + text);
        }
    }

    /** Seconds (decimals allowed) as nanoseconds. */
    long nanos(String name, double otherwiseSeconds) {
        var text = values.get(name);
        double seconds = otherwiseSeconds;
        if (text != null) {
            try {
                seconds = Double.parseDouble(text);
            } catch (NumberFormatException e) {
                throw new UsageException("--" + name + " is not a number of seconds: " + text);
            }
            if (!(seconds >= 0) || seconds > 86_400) throw new UsageException("--" + name + " must be in 0..86400 s: " + text);
        }
        return (long) (seconds * 1e9);
    }

    /** A bad command line; a null message asks for the usage text only. */
    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }
}
