package io.pekquitto.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * QoS 1 round trips, one at a time: a publisher sends a PUBLISH and a subscriber on its topic
 * receives it; the next PUBLISH leaves once both the PUBACK and the delivery are in. Measures
 * PUBLISH->PUBACK and publish->delivery in microseconds.
 */
final class LatencyScenario {

    private final Bench.Context context;
    private final int messages;
    private final int warmup;
    private final int payload;
    private final long duration;
    private final long[] pubAckNanos;
    private final long[] deliveryNanos;
    private volatile String error;

    LatencyScenario(Bench.Context context, Options options) {
        this.context = context;
        this.messages = options.integer("messages", 10_000, 1, 50_000_000);
        this.warmup = options.integer("warmup", 1_000, 0, 10_000_000);
        this.payload = options.integer("payload", 32, Mqtt.PublishTemplate.MIN_PAYLOAD, 1 << 20);
        this.duration = options.nanos("duration", 10);
        this.pubAckNanos = new long[messages];
        this.deliveryNanos = new long[messages];
    }

    Report run() throws InterruptedException {
        var report = new Report("latency");
        var topic = "bench/" + context.runId() + "/latency";
        var loop = context.loop(0);
        var ready = new CountDownLatch(2);
        var done = new CountDownLatch(1);
        var pair = new Pair(loop, topic, ready, done);
        loop.execute(pair.subscriber::open);
        loop.execute(pair.publisher::open);
        if (!ready.await(30, TimeUnit.SECONDS)) error = "not connected within 30 s";
        report.put("label", context.label()).put("qos", 1).put("payload", payload);
        long start = System.nanoTime();
        if (error == null) {
            loop.execute(() -> pair.start(start + duration));
            if (!done.await(duration + TimeUnit.SECONDS.toNanos(10), TimeUnit.NANOSECONDS)) {
                error = "round trip " + pair.sequence + " stalled: no PUBACK or delivery within 10 s after --duration";
            }
        }
        loop.execute(pair.publisher::disconnect);
        loop.execute(pair.subscriber::disconnect);
        context.closeLoops();
        int n = pair.measured;
        double seconds = (pair.endedAt - start) / 1e9;
        report.put("round_trips", n).put("round_trips_per_s", seconds > 0 ? pair.sequence / seconds : 0.0);
        report.say("%sqos1 %dB, %,d round trips", context.labelPrefix(), payload, n);
        summarize(report, "puback", Arrays.copyOf(pubAckNanos, n));
        summarize(report, "delivery", Arrays.copyOf(deliveryNanos, n));
        if (error != null) report.error(error);
        return report;
    }

    static void summarize(Report report, String name, long[] nanos) {
        Arrays.sort(nanos);
        double p50 = micros(nanos, 0.50);
        double p90 = micros(nanos, 0.90);
        double p99 = micros(nanos, 0.99);
        double max = nanos.length == 0 ? 0 : nanos[nanos.length - 1] / 1e3;
        report.put(name + "_p50_us", p50).put(name + "_p90_us", p90).put(name + "_p99_us", p99).put(name + "_max_us", max);
        report.say("%s us p50 %.0f p90 %.0f p99 %.0f max %.0f", name, p50, p90, p99, max);
    }

    static double micros(long[] sorted, double quantile) {
        if (sorted.length == 0) return 0;
        int index = (int) Math.ceil(quantile * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1e3;
    }

    /** The two clients, driven on one loop thread. */
    private final class Pair {
        final Mqtt.PublishTemplate template;
        final CountDownLatch done;
        final Client publisher;
        final Client subscriber;
        long deadline;
        long sentAt;
        int sequence; // current round trip, warm-up included
        int measured;
        boolean acked;
        boolean delivered;
        boolean finished;
        long endedAt;

        Pair(EventLoop loop, String topic, CountDownLatch ready, CountDownLatch done) {
            this.template = new Mqtt.PublishTemplate(topic, 1, payload, context.v5());
            this.done = done;
            this.publisher = new Client(loop, "lp", null, ready);
            this.subscriber = new Client(loop, "ls", topic, ready);
            publisher.pair = this;
            subscriber.pair = this;
        }

        void start(long deadline) {
            this.deadline = deadline;
            loop().onTick(now -> {
                if (!finished && now - deadline >= 0 && now - sentAt > TimeUnit.SECONDS.toNanos(10)) finish(now);
            });
            sendNext();
        }

        private EventLoop loop() {
            return publisher.loop;
        }

        private void sendNext() {
            long now = System.nanoTime();
            if (sequence >= warmup + messages || now - deadline >= 0) {
                finish(now);
                return;
            }
            acked = false;
            delivered = false;
            try {
                publisher.ensureRoom(template.size());
                template.writeTo(publisher.out, (sequence % 65_535) + 1, 0, sequence);
                sentAt = System.nanoTime();
                publisher.flush();
            } catch (IOException e) {
                publisher.fail(e.getMessage());
            }
        }

        private void finish(long now) {
            if (finished) return;
            finished = true;
            endedAt = now;
            done.countDown();
        }

        void onPubAck(int packetId, long now) {
            if (finished || packetId != (sequence % 65_535) + 1) return;
            acked = true;
            if (sequence >= warmup) pubAckNanos[sequence - warmup] = now - sentAt;
            completed();
        }

        void onDelivery(long seq, long now) {
            if (finished || seq != sequence) {
                if (!finished) error = "delivery of sequence " + seq + " while waiting for " + sequence;
                return;
            }
            delivered = true;
            if (sequence >= warmup) deliveryNanos[sequence - warmup] = now - sentAt;
            completed();
        }

        private void completed() {
            if (!acked || !delivered) return;
            if (sequence >= warmup) measured++;
            sequence++;
            sendNext();
        }

        void failed(String reason) {
            error = reason;
            finish(System.nanoTime());
        }
    }

    private final class Client extends Connection {
        final String name;
        final String filter; // null for the publisher
        final CountDownLatch ready;
        Pair pair;

        Client(EventLoop loop, String name, String filter, CountDownLatch ready) {
            super(loop, filter == null ? context.address() : context.subscriberAddress(), context.v5(), 16 * 1024, 16 * 1024);
            this.name = name;
            this.filter = filter;
            this.ready = ready;
        }

        @Override
        byte[] connectPacket() {
            return Mqtt.connect(context.clientId(name), context.keepAlive(), true, v5);
        }

        @Override
        void onConnected() {
            if (filter == null) {
                ready.countDown();
                return;
            }
            try {
                send(Mqtt.subscribe(1, filter, 1, v5));
            } catch (IOException e) {
                fail(e.getMessage());
            }
        }

        @Override
        void onPacket(int header, ByteBuffer frame, int bodyOffset, int bodyLength) throws IOException {
            long now = System.nanoTime();
            var p = pair;
            switch (Mqtt.type(header)) {
                case Mqtt.SUBACK -> {
                    int code = frame.get(bodyOffset + bodyLength - 1) & 0xFF;
                    if (code >= 0x80) fail("SUBACK refused with code " + code);
                    else ready.countDown();
                }
                case Mqtt.PUBACK -> p.onPubAck(frame.getShort(bodyOffset) & 0xFFFF, now);
                case Mqtt.PUBLISH -> {
                    int qos = Mqtt.qos(header);
                    int payloadAt = Mqtt.publishPayloadOffset(frame, bodyOffset, qos, v5);
                    if (qos > 0) {
                        ensureRoom(4);
                        Mqtt.putAck(out, Mqtt.PUBACK, frame.getShort(bodyOffset + 2 + (frame.getShort(bodyOffset) & 0xFFFF)) & 0xFFFF);
                    }
                    p.onDelivery(frame.getLong(payloadAt + 4), now);
                }
                default -> { }
            }
        }

        @Override
        void onFailed(String reason) {
            if (pair != null && !pair.finished) pair.failed(name + ": " + reason);
            else if (error == null) error = name + ": " + reason;
            ready.countDown();
        }
    }
}
