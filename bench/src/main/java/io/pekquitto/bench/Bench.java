package io.pekquitto.bench;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The load generator's entry point: {@code java -jar pekquitto-bench.jar <scenario> [options]}.
 * Drives any MQTT broker from plain {@code java.nio} selector threads so that the broker, not the
 * tool, is the bottleneck. Every run is bounded in time and exits by itself.
 */
public final class Bench {

    private Bench() {}

    public static void main(String[] args) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (Options.UsageException e) {
            if (e.getMessage() == null) {
                System.out.print(Options.USAGE);
                System.exit(0);
            }
            System.err.println("pekquitto-bench: " + e.getMessage());
            System.err.println("Use --help to see usage.");
            System.exit(Report.ERROR);
            return;
        }
        var report = run(options);
        System.out.println(report.line());
        if (options.flag("json")) System.out.println(report.json());
        System.exit(report.exitCode);
    }

    static Report run(Options options) {
        Context context;
        try {
            context = Context.of(options);
        } catch (Options.UsageException e) {
            return new Report(options.scenario).error(e.getMessage());
        }
        // A watchdog: whatever happens on the wire, the process ends.
        var limit = options.nanos("duration", 10) + options.nanos("hold", 5) + options.nanos("drain", 10) + 120_000_000_000L;
        var watchdog = new Thread(() -> {
            try {
                Thread.sleep(limit / 1_000_000);
                System.err.println("pekquitto-bench: watchdog: run exceeded its time bound, exiting");
                Runtime.getRuntime().halt(Report.ERROR);
            } catch (InterruptedException ignored) {
                // run finished first
            }
        }, "bench-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        try {
            return switch (options.scenario) {
                case "fanin" -> new PubSubScenario(context, options, false).run();
                case "fanout" -> new PubSubScenario(context, options, true).run();
                case "latency" -> new LatencyScenario(context, options).run();
                case "idle" -> new IdleScenario(context, options).run();
                case "connect-rate" -> new ConnectRateScenario(context, options).run();
                case "takeover" -> new TakeoverScenario(context, options).run();
                default -> throw new IllegalArgumentException(options.scenario);
            };
        } catch (Options.UsageException e) {
            return new Report(options.scenario).error(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Report(options.scenario).error("interrupted");
        } finally {
            context.closeLoops();
            watchdog.interrupt();
        }
    }

    /** What every scenario shares: where the broker is, the loops, the client id prefix. */
    /** @param persistentSubscribers fanin/fanout subscribers keep their sessions (a store writes what they get) */
    /** @param subscriberAddress where subscribers connect: the broker's address, or another node of its cluster */
    record Context(InetSocketAddress address, InetSocketAddress subscriberAddress, Transport transport, EventLoop[] loops,
                   boolean v5, int keepAlive, String runId, String label, boolean persistentSubscribers) {

        static Context of(Options options) {
            var host = options.string("host", "127.0.0.1");
            int port = options.integer("port", 1883, 1, 65_535);
            int threads = options.integer("threads", 1, 1, 256);
            boolean v5 = options.flag("mqtt5");
            int keepAlive = options.integer("keepalive", 60, 0, 65_535);
            var runId = Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
            var address = new InetSocketAddress(host, port);
            if (address.isUnresolved()) throw new Options.UsageException("cannot resolve host " + host);
            var subscriberAddress = new InetSocketAddress(host, options.integer("subscriber-port", port, 1, 65_535));
            var caFile = options.string("cafile", "");
            var tls = options.flag("tls") ? TlsContexts.client(caFile.isEmpty() ? null : Path.of(caFile)) : null;
            var transport = new Transport(tls, webSocketPath(options));
            return new Context(address, subscriberAddress, transport, EventLoop.start(threads, transport), v5, keepAlive, runId,
                    options.string("label", ""), options.flag("persistent-subscribers"));
        }

        /** --websocket PATH, or --ws for the usual /mqtt; null for MQTT straight on the socket. */
        static String webSocketPath(Options options) {
            var path = options.string("websocket", options.flag("ws") ? "/mqtt" : null);
            if (path == null) return null;
            if (!path.startsWith("/") || path.chars().anyMatch(c -> c <= ' ' || c >= 0x7F)) {
                throw new Options.UsageException("--websocket wants an HTTP path such as /mqtt: " + path);
            }
            return path;
        }

        EventLoop loop(int index) {
            return loops[index % loops.length];
        }

        String clientId(String suffix) {
            return "bench-" + runId + "-" + suffix;
        }

        String labelPrefix() {
            return label.isEmpty() ? "" : "[" + label + "] ";
        }

        void closeLoops() {
            for (var loop : loops) loop.close();
        }

        static String kib(long bytes) {
            return String.format(Locale.ROOT, "%.2f KiB", bytes / 1024.0);
        }
    }
}
