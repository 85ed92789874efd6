package io.pekquitto.bench;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * --concurrency clients each loop over connect, CONNECT, CONNACK, DISCONNECT, close until
 * --duration; reports completed connects per second, and with --broker-pid the broker's CPU time per
 * connect (user and system, every thread) over the run.
 */
final class ConnectRateScenario {

    private final Bench.Context context;
    private final int concurrency;
    private final long duration;
    private final long brokerPid;
    private final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();

    ConnectRateScenario(Bench.Context context, Options options) {
        this.context = context;
        this.concurrency = options.integer("concurrency", 8, 1, 10_000);
        this.duration = options.nanos("duration", 10);
        this.brokerPid = options.longValue("broker-pid", 0);
    }

    Report run() throws InterruptedException {
        var report = new Report("connect-rate");
        report.put("label", context.label()).put("concurrency", concurrency);
        var stopped = new CountDownLatch(concurrency);
        var cyclers = new ArrayList<Cycler>();
        long cpuBefore = brokerPid > 0 ? BrokerCpu.nanos(brokerPid) : 0;
        long start = System.nanoTime();
        long deadline = start + duration;
        for (int i = 0; i < concurrency; i++) {
            var c = new Cycler(context.loop(i), i, deadline, stopped);
            cyclers.add(c);
            c.loop.execute(c::open);
        }
        for (var loop : context.loops()) {
            var mine = cyclers.stream().filter(c -> c.loop == loop).toList();
            loop.execute(() -> loop.onTick(now -> mine.forEach(c -> c.tick(now))));
        }
        if (!stopped.await(duration + TimeUnit.SECONDS.toNanos(15), TimeUnit.NANOSECONDS)) {
            errors.add("some connects did not complete within 15 s after --duration");
        }
        long end = System.nanoTime();
        long cpu = brokerPid > 0 ? BrokerCpu.nanos(brokerPid) - cpuBefore : 0;
        context.closeLoops();
        long connects = 0;
        long failures = 0;
        for (var c : cyclers) {
            connects += c.connects;
            failures += c.failures;
        }
        double seconds = (end - start) / 1e9;
        double rate = connects / seconds;
        report.put("connects", connects).put("failures", failures).put("connects_per_s", rate).put("seconds", seconds);
        report.say("%s%,d connects in %.1f s: %,.0f connects/s, %d failures (concurrency %d)", context.labelPrefix(),
                connects, seconds, rate, failures, concurrency);
        if (brokerPid > 0 && connects > 0) {
            double cpuPerConnect = cpu / 1e3 / connects;
            report.put("broker_cpu_us_per_connect", cpuPerConnect);
            report.say("%sbroker CPU %.1f us per connect (%.1f s of CPU in %.1f s)", context.labelPrefix(), cpuPerConnect, cpu / 1e9, seconds);
        }
        if (failures > 0) report.say("first failures: %s", String.join("; ", errors.stream().distinct().limit(3).toList()));
        if (failures > connects / 100) report.error(failures + " failed connects");
        return report;
    }

    private final class Cycler extends Connection {
        final int index;
        final long deadline;
        final CountDownLatch stopped;
        long connects;
        long failures;
        long openedAt;
        boolean finished;

        Cycler(EventLoop loop, int index, long deadline, CountDownLatch stopped) {
            super(loop, context.address(), context.v5(), 64, 64);
            this.index = index;
            this.deadline = deadline;
            this.stopped = stopped;
        }

        @Override
        byte[] connectPacket() {
            openedAt = System.nanoTime();
            return Mqtt.connect(context.clientId("c" + index), context.keepAlive(), true, v5);
        }

        @Override
        void onConnected() {
            connects++;
            disconnect();
            loop.execute(this::next); // after this dispatch: open() resets the buffers being parsed
        }

        private void next() {
            if (System.nanoTime() - deadline >= 0) {
                finish();
            } else {
                open();
            }
        }

        private void finish() {
            if (finished) return;
            finished = true;
            stopped.countDown();
        }

        void tick(long now) {
            // A connect that hangs past the deadline ends this client's loop after 10 s.
            if (!finished && !closed && now - deadline >= 0 && now - openedAt > TimeUnit.SECONDS.toNanos(10)) {
                errors.add("connect hung for 10 s");
                failures++;
                closeQuietly();
                finish();
            }
        }

        @Override
        void onPacket(int header, ByteBuffer frame, int bodyOffset, int bodyLength) {
            // nothing else is expected before our DISCONNECT
        }

        @Override
        void onFailed(String reason) {
            failures++;
            errors.add(reason);
            loop.execute(this::next); // never recurse: a synchronous connect failure would loop here
        }
    }
}
