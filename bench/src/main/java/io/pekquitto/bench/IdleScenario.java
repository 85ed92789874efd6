package io.pekquitto.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Opens N connections (at most --concurrency connecting at once), CONNECTs each and holds them
 * idle; reports connects/s and, given the broker's pid, its resident memory per connection.
 * Loopback connections each take an ephemeral port (see /proc/sys/net/ipv4/ip_local_port_range)
 * and a file descriptor on both sides.
 */
final class IdleScenario {

    private final Bench.Context context;
    private final int count;
    private final int concurrency;
    private final long hold;
    private final long brokerPid;
    private final boolean jcmd;
    private final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
    private final AtomicInteger failed = new AtomicInteger();

    IdleScenario(Bench.Context context, Options options) {
        this.context = context;
        this.count = options.integer("connections", 10_000, 1, 1_000_000);
        this.concurrency = options.integer("concurrency", 64, 1, 100_000);
        this.hold = options.nanos("hold", 5);
        this.brokerPid = options.longValue("broker-pid", 0);
        this.jcmd = options.flag("jcmd");
        if (jcmd && brokerPid == 0) throw new Options.UsageException("--jcmd needs --broker-pid");
    }

    Report run() throws InterruptedException {
        var report = new Report("idle");
        report.put("label", context.label()).put("connections", count);
        long heapBefore = jcmd ? liveHeapBytes(brokerPid) : -1;
        long rssBefore = brokerPid > 0 ? rssBytes(brokerPid) : -1;
        var settled = new CountDownLatch(count);
        var loops = context.loops();
        var perLoop = new ArrayList<List<Idle>>();
        for (int l = 0; l < loops.length; l++) perLoop.add(new ArrayList<>());
        for (int i = 0; i < count; i++) {
            perLoop.get(i % loops.length).add(new Idle(loops[i % loops.length], i, settled));
        }
        long start = System.nanoTime();
        for (int l = 0; l < loops.length; l++) {
            var opener = new Opener(perLoop.get(l), Math.max(1, concurrency / loops.length));
            loops[l].execute(opener::openMore);
        }
        long pingEvery = TimeUnit.SECONDS.toNanos(Math.max(1, context.keepAlive() / 2));
        for (int l = 0; l < loops.length; l++) {
            var mine = perLoop.get(l);
            var loop = loops[l];
            long[] nextPing = {start + pingEvery};
            loop.execute(() -> loop.onTick(now -> {
                if (context.keepAlive() == 0 || now - nextPing[0] < 0) return;
                nextPing[0] = now + pingEvery;
                for (var c : mine) c.ping();
            }));
        }
        long connectTimeout = TimeUnit.SECONDS.toNanos(30) + count * 1_000_000L; // 1 ms per connection more
        boolean all = settled.await(connectTimeout, TimeUnit.NANOSECONDS);
        long connectedAt = System.nanoTime();
        int connected = 0;
        for (var list : perLoop) for (var c : list) if (c.accepted) connected++;
        if (!all) errors.add("not all connections settled within " + connectTimeout / 1_000_000_000 + " s");
        double connectSeconds = (connectedAt - start) / 1e9;
        Thread.sleep(hold / 1_000_000);
        // As before the connections: the full GC first, then RSS, so that both RSS figures follow one
        // (else the heap a warm-up grew, returned during the hold, makes the difference negative).
        long heapAfter = jcmd ? liveHeapBytes(brokerPid) : -1;
        long rssAfter = brokerPid > 0 ? rssBytes(brokerPid) : -1;
        int stillOpen = 0;
        for (var list : perLoop) for (var c : list) if (c.connected) stillOpen++;
        for (int l = 0; l < loops.length; l++) {
            var mine = perLoop.get(l);
            loops[l].execute(() -> mine.forEach(Connection::disconnect));
        }
        context.closeLoops();
        double rate = connectSeconds > 0 ? connected / connectSeconds : 0;
        report.put("connected", connected).put("failed", failed.get()).put("open_after_hold", stillOpen)
                .put("connects_per_s", rate).put("hold_seconds", hold / 1e9);
        report.say("%s%,d of %,d connected at %,.0f connects/s, %,d still open after %.0f s", context.labelPrefix(),
                connected, count, rate, stillOpen, hold / 1e9);
        if (brokerPid > 0) {
            double perConnection = connected > 0 ? (rssAfter - rssBefore) / 1024.0 / connected : 0;
            report.put("rss_before_kib", rssBefore / 1024).put("rss_after_kib", rssAfter / 1024)
                    .put("rss_per_connection_kib", perConnection);
            report.say("broker RSS %,d -> %,d KiB, %.2f KiB per connection", rssBefore / 1024, rssAfter / 1024, perConnection);
        }
        if (jcmd && heapBefore >= 0 && heapAfter >= 0) {
            double perConnection = connected > 0 ? (heapAfter - heapBefore) / 1024.0 / connected : 0;
            report.put("heap_before_kib", heapBefore / 1024).put("heap_after_kib", heapAfter / 1024)
                    .put("heap_per_connection_kib", perConnection);
            report.say("live heap after full GC %,d -> %,d KiB, %.2f KiB per connection", heapBefore / 1024,
                    heapAfter / 1024, perConnection);
        } else if (jcmd) {
            errors.add("jcmd could not read the broker's heap");
        }
        if (failed.get() > 0) errors.add(failed.get() + " connections failed");
        if (stillOpen < connected) errors.add((connected - stillOpen) + " connections closed during the hold");
        errors.stream().distinct().limit(10).forEach(report::error);
        return report;
    }

    /** VmRSS from /proc/PID/status, in bytes. */
    static long rssBytes(long pid) {
        try {
            for (var line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) return parseKib(line) * 1024;
            }
            throw new IllegalStateException("no VmRSS in /proc/" + pid + "/status");
        } catch (IOException e) {
            throw new Options.UsageException("cannot read /proc/" + pid + "/status: " + e.getMessage());
        }
    }

    /**
     * A JVM broker's live heap: {@code jcmd PID GC.run} (a full collection), then the "used" figure
     * of {@code jcmd PID GC.heap_info}; -1 when jcmd fails.
     */
    static long liveHeapBytes(long pid) {
        try {
            if (runJcmd(pid, "GC.run") == null) return -1;
            var info = runJcmd(pid, "GC.heap_info");
            return info == null ? -1 : parseHeapUsedKib(info) * 1024;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static String runJcmd(long pid, String command) throws InterruptedException {
        try {
            var process = new ProcessBuilder("jcmd", Long.toString(pid), command).redirectErrorStream(true).start();
            var output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) return null;
            return output;
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * The heap's "used" in GC.heap_info output: the sum over its "total NNNK, used NNNK" lines, which are the
     * whole heap with G1 and each generation with Serial or Parallel (young, then old: the first alone is
     * the young generation, about empty after a full GC); -1 without one.
     */
    static long parseHeapUsedKib(String heapInfo) {
        var matcher = java.util.regex.Pattern.compile("total \\d+K, used (\\d+)K").matcher(heapInfo);
        long used = -1;
        while (matcher.find()) used = Math.max(used, 0) + Long.parseLong(matcher.group(1));
        return used;
    }

    static long parseKib(String statusLine) {
        var fields = statusLine.trim().split("\\s+");
        return Long.parseLong(fields[1]);
    }

    /** Keeps at most {@code limit} connections of one loop connecting at once. */
    private static final class Opener {
        final List<Idle> connections;
        final int limit;
        int next;
        int inProgress;

        Opener(List<Idle> connections, int limit) {
            this.connections = connections;
            this.limit = limit;
            for (var c : connections) c.opener = this;
        }

        void openMore() {
            while (inProgress < limit && next < connections.size()) {
                inProgress++;
                connections.get(next++).open();
            }
        }

        void settled() {
            inProgress--;
            openMore();
        }
    }

    private final class Idle extends Connection {
        final int index;
        final CountDownLatch settled;
        Opener opener;
        boolean accepted;
        boolean done;

        Idle(EventLoop loop, int index, CountDownLatch settled) {
            super(loop, context.address(), context.v5(), 64, 64);
            this.index = index;
            this.settled = settled;
        }

        @Override
        byte[] connectPacket() {
            return Mqtt.connect(context.clientId("i" + index), context.keepAlive(), true, v5);
        }

        @Override
        void onConnected() {
            accepted = true;
            settle();
        }

        private void settle() {
            if (done) return;
            done = true;
            settled.countDown();
            opener.settled();
        }

        void ping() {
            if (!connected) return;
            try {
                send(Mqtt.PINGREQ_PACKET);
                flush();
            } catch (IOException e) {
                fail(e.getMessage());
            }
        }

        @Override
        void onPacket(int header, ByteBuffer frame, int bodyOffset, int bodyLength) {
            // PINGRESP only
        }

        @Override
        void onFailed(String reason) {
            if (!done) failed.incrementAndGet();
            errors.add(reason);
            settle();
        }
    }
}
