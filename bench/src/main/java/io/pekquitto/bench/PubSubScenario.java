package io.pekquitto.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * fanin and fanout: P publishers, each on its own topic, and S subscribers that each receive every
 * message (fanin: on the wildcard covering the publishers' topics; fanout: one publisher, its exact
 * topic). Every payload carries its publisher id and sequence number, so each subscriber checks that
 * it got each message exactly once; at QoS 1 and 2 a missing message is a failure.
 *
 * <p>What one client costs the others: {@code --slow-subscribers K} adds K {@link SlowSubscriber}s
 * (does the broker slow the publishers down to a stuck consumer, or queue and drop for it alone?), and
 * {@code --subscription-churn N} one {@link SubscriptionChurn} (what do subscriptions changing
 * elsewhere cost the routing of these topics?).
 */
final class PubSubScenario {

    private static final int BUFFER = 64 * 1024;

    private final Bench.Context context;
    private final boolean fanout;
    private final int publisherCount;
    private final int subscriberCount;
    private final int slowSubscriberCount;
    private final int qos;
    private final int payload;
    private final int window;
    private final long messages;
    private final long duration;
    private final long drain;
    private final long maxLag;
    /** Per (subscriber, publisher): the highest sequence number received + 1, for --max-lag. */
    private final AtomicLongArray progress;
    private final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
    private final int churnRate;
    private SubscriptionChurn churn;

    PubSubScenario(Bench.Context context, Options options, boolean fanout) {
        this.context = context;
        this.fanout = fanout;
        this.publisherCount = fanout ? 1 : options.integer("publishers", 10, 1, 10_000);
        this.subscriberCount = options.integer("subscribers", fanout ? 100 : 2, 1, 10_000);
        this.slowSubscriberCount = slowSubscribers(options);
        this.qos = options.integer("qos", 0, 0, 2);
        this.payload = options.integer("payload", 32, Mqtt.PublishTemplate.MIN_PAYLOAD, 1 << 20);
        this.window = options.integer("inflight", 16, 1, 65_535);
        this.messages = options.longValue("messages", 0);
        this.duration = options.nanos("duration", 10);
        this.drain = options.nanos("drain", 10);
        this.maxLag = options.longValue("max-lag", 0);
        this.progress = new AtomicLongArray(maxLag > 0 ? publisherCount * subscriberCount : 0);
        this.churnRate = options.integer("subscription-churn", 0, 0, 100_000);
        if (churnRate > 0 && !Transport.TCP.equals(context.transport())) {
            // Its client is a blocking socket of its own, outside the event loop's links.
            throw new Options.UsageException("--subscription-churn speaks plain TCP only, not " + context.transport().name());
        }
    }

    /** {@code --slow-subscribers}: 0 (none) by default. */
    static int slowSubscribers(Options options) {
        return options.integer("slow-subscribers", 0, 0, 10_000);
    }

    Report run() throws InterruptedException {
        var report = new Report(fanout ? "fanout" : "fanin");
        var base = "bench/" + context.runId();
        var subscribersReady = new CountDownLatch(subscriberCount + slowSubscriberCount);
        var publishersReady = new CountDownLatch(publisherCount);
        var publishersDone = new CountDownLatch(publisherCount);
        var subscribers = new ArrayList<Subscriber>();
        var slowSubscribers = new ArrayList<SlowSubscriber>();
        var publishers = new ArrayList<Publisher>();
        var filter = fanout ? base + "/0" : base + "/+";
        for (int i = 0; i < subscriberCount; i++) {
            subscribers.add(new Subscriber(context, context.loop(i), i, filter, qos, publisherCount, maxLag > 0 ? progress : null,
                    subscribersReady, errors::add));
        }
        for (int i = 0; i < publisherCount; i++) {
            publishers.add(new Publisher(context.loop(subscriberCount + i), i, base + "/" + i, publishersReady, publishersDone));
        }
        for (int i = 0; i < slowSubscriberCount; i++) {
            slowSubscribers.add(new SlowSubscriber(context, context.loop(subscriberCount + publisherCount + i), i, filter, qos,
                    subscribersReady, errors::add));
        }
        for (var s : subscribers) s.loop.execute(s::open);
        for (var s : slowSubscribers) s.loop.execute(s::open);
        if (!subscribersReady.await(30, TimeUnit.SECONDS)) errors.add("subscribers not all subscribed within 30 s");
        startChurn();
        for (var p : publishers) p.loop.execute(p::open);
        if (!publishersReady.await(30, TimeUnit.SECONDS)) errors.add("publishers not all connected within 30 s");
        report.put("label", context.label()).put("qos", qos).put("publishers", publisherCount)
                .put("subscribers", subscriberCount).put("slow_subscribers", slowSubscriberCount).put("payload", payload).put("inflight", qos == 0 ? 0 : window)
                .put("max_lag", maxLag);
        if (!errors.isEmpty()) return finish(report, publishers, subscribers, slowSubscribers, 0, 0);

        long start = System.nanoTime();
        long deadline = start + duration;
        for (var loop : context.loops()) {
            var mine = publishers.stream().filter(p -> p.loop == loop).toList();
            loop.execute(() -> {
                loop.onTick(now -> mine.forEach(p -> p.tick(now)));
                mine.forEach(p -> p.start(deadline));
            });
        }
        long doneBy = duration + TimeUnit.SECONDS.toNanos(30);
        if (!publishersDone.await(doneBy, TimeUnit.NANOSECONDS)) {
            errors.add("publishers did not finish within --duration + 30 s (acknowledgements stalled)");
        }
        long publishedTarget = publishers.stream().mapToLong(p -> p.sentView).sum();
        long expected = publishedTarget * subscriberCount;
        // Wait for the tail: until every subscriber has everything, or --drain elapsed, or (QoS 0) a quiet second.
        long drainUntil = System.nanoTime() + drain;
        long lastTotal = -1;
        long lastChange = System.nanoTime();
        while (System.nanoTime() < drainUntil) {
            long total = subscribers.stream().mapToLong(s -> s.uniqueView).sum();
            if (total >= expected) break;
            if (total != lastTotal) {
                lastTotal = total;
                lastChange = System.nanoTime();
            } else if (qos == 0 && System.nanoTime() - lastChange > TimeUnit.SECONDS.toNanos(1)) {
                break;
            }
            Thread.sleep(5);
        }
        return finish(report, publishers, subscribers, slowSubscribers, start, expected);
    }

    private void startChurn() {
        if (churnRate == 0) return;
        try {
            churn = SubscriptionChurn.start(context.address(), context.runId(), churnRate, context.v5());
        } catch (IOException e) {
            errors.add("subscription churn: " + e.getMessage());
        }
    }

    private Report finish(Report report, List<Publisher> publishers, List<Subscriber> subscribers,
            List<SlowSubscriber> slowSubscribers, long start, long expected) {
        for (var c : subscribers) c.loop.execute(c::disconnect);
        for (var c : slowSubscribers) c.loop.execute(c::disconnect);
        for (var c : publishers) c.loop.execute(c::disconnect);
        long now = System.nanoTime();
        context.closeLoops(); // joins the loop threads: their fields are visible from here on
        if (churn != null) {
            churn.close();
            report.put("subscription_changes", churn.changes());
            if (churn.error() != null) errors.add(churn.error());
        }
        long sent = 0;
        long acked = 0;
        long pubEnd = start;
        for (var p : publishers) {
            sent += p.sent;
            acked += p.acked;
            // A publisher still waiting for acknowledgements (a broker that stalled it) counts until now.
            pubEnd = Math.max(pubEnd, p.finished || start == 0 ? p.finishedAt : now);
        }
        long deliveries = 0;
        long duplicates = 0;
        long foreign = 0;
        long missing = 0;
        long lastReceive = start;
        long firstLoss = Long.MAX_VALUE;
        String lossExample = null;
        for (var s : subscribers) {
            deliveries += s.deliveries;
            duplicates += s.duplicates;
            foreign += s.foreign;
            lastReceive = Math.max(lastReceive, s.lastReceive);
            for (var p : publishers) {
                long must = qos == 0 ? p.sent : p.acked;
                if (must > Integer.MAX_VALUE) throw new IllegalStateException("too many messages to verify");
                long gone = must - s.seen[p.id].get(0, (int) must).cardinality();
                missing += gone;
                if (gone > 0) {
                    int first = s.seen[p.id].nextClearBit(0);
                    firstLoss = Math.min(firstLoss, first);
                    if (lossExample == null) {
                        lossExample = "subscriber " + s.index + " missed " + gone + " of publisher " + p.id + "'s " + must
                                + " (first missing sequence " + first + ", last received " + (s.seen[p.id].length() - 1) + ")";
                    }
                }
            }
        }
        double pubSeconds = (pubEnd - start) / 1e9;
        double recvSeconds = (lastReceive - start) / 1e9;
        double publishRate = pubSeconds > 0 ? sent / pubSeconds : 0;
        double receiveRate = recvSeconds > 0 ? deliveries / recvSeconds : 0;
        // QoS 1/2: the rate at which the broker acknowledged (PUBACK / PUBCOMP), what a slow subscriber may hold back.
        double acknowledgeRate = pubSeconds > 0 ? (qos == 0 ? sent : acked) / pubSeconds : 0;
        report.put("published", sent).put("acknowledged", qos == 0 ? sent : acked).put("delivered", deliveries)
                .put("expected", expected).put("lost", missing).put("duplicates", duplicates).put("foreign", foreign)
                .put("published_per_s", publishRate).put("acknowledged_per_s", acknowledgeRate).put("received_per_s", receiveRate)
                .put("publish_seconds", pubSeconds).put("receive_seconds", recvSeconds);
        report.say("%s%d->%d%s qos%d %dB", context.labelPrefix(), publishers.size(), subscribers.size(),
                        slowSubscribers.isEmpty() ? "" : " +" + slowSubscribers.size() + " slow", qos, payload)
                .say("received %,.0f msg/s", receiveRate)
                .say("published %,.0f msg/s", publishRate);
        if (qos > 0) report.say("acknowledged %,.0f msg/s", acknowledgeRate);
        report.say("%,d published, %,d delivered of %,d expected", sent, deliveries, expected)
                .say("lost %,d", missing).say("duplicates %,d", duplicates);
        if (foreign > 0) report.say("unexpected payloads %,d", foreign);
        if (lossExample != null) report.put("loss_example", lossExample).say("e.g. %s", lossExample);
        if (qos > 0 && sent != acked) report.error((sent - acked) + " publishes never acknowledged");
        errors.forEach(report::error);
        if (qos > 0 && (missing > 0 || foreign > 0)) {
            report.error("QoS " + qos + " messages lost: " + missing);
            report.exitCode = Report.LOSS;
        }
        return report;
    }

    /** Publishes its topic as fast as the window (QoS 1/2) or the socket (QoS 0) allows. */
    private final class Publisher extends Connection {
        final int id;
        final String topic;
        final Mqtt.PublishTemplate template;
        final CountDownLatch ready;
        final CountDownLatch done;
        final boolean[] inUse = new boolean[65_536];
        int nextId;
        int inflight;
        long deadline;
        boolean started;
        boolean stopped;
        boolean finished;
        long sent;
        long acked;
        long finishedAt;
        volatile long sentView;

        Publisher(EventLoop loop, int id, String topic, CountDownLatch ready, CountDownLatch done) {
            super(loop, context.address(), context.v5(), BUFFER, BUFFER);
            this.id = id;
            this.topic = topic;
            this.template = new Mqtt.PublishTemplate(topic, qos, payload, v5);
            this.ready = ready;
            this.done = done;
        }

        @Override
        byte[] connectPacket() {
            return Mqtt.connect(context.clientId("p" + id), context.keepAlive(), true, v5);
        }

        @Override
        void onConnected() {
            ready.countDown();
        }

        void start(long deadline) {
            this.deadline = deadline;
            started = true;
            pump();
            try {
                flush();
            } catch (IOException e) {
                fail(e.getMessage());
            }
        }

        void tick(long now) {
            if (!started || finished) return;
            if (!stopped && now - deadline >= 0) stopped = true;
            if (maxLag > 0 && !stopped && !closed) {
                // After every wake-up of the loop: subscribers may have caught up.
                pump();
                try {
                    flush();
                } catch (IOException e) {
                    fail(e.getMessage());
                }
            }
            if (stopped && inflight == 0 && (closed || out.position() == 0)) finish(now);
        }

        private void finish(long now) {
            finished = true;
            finishedAt = qos == 0 ? Math.min(now, deadline) : now;
            sentView = sent;
            done.countDown();
        }

        private void pump() {
            if (!started || stopped || closed) return;
            if (System.nanoTime() - deadline >= 0) {
                stopped = true;
                return;
            }
            var buf = out;
            int size = template.size();
            long lagLimit = maxLag > 0 ? slowestSubscriber() + maxLag : Long.MAX_VALUE;
            while (buf.remaining() >= size && (qos == 0 || inflight < window) && sent < lagLimit) {
                if (messages > 0 && sent >= messages) {
                    stopped = true;
                    return;
                }
                int packetId = 0;
                if (qos > 0) {
                    packetId = allocatePacketId();
                    inflight++;
                }
                template.writeTo(buf, packetId, id, sent++);
            }
        }

        /** How far the slowest subscriber has got with this publisher's sequence. */
        private long slowestSubscriber() {
            long min = Long.MAX_VALUE;
            for (int s = 0; s < subscriberCount; s++) min = Math.min(min, progress.get(s * publisherCount + id));
            return min;
        }

        private int allocatePacketId() {
            do {
                nextId = nextId == 65_535 ? 1 : nextId + 1;
            } while (inUse[nextId]);
            inUse[nextId] = true;
            return nextId;
        }

        @Override
        boolean wantsWrite() {
            return qos == 0 && started && !stopped;
        }

        @Override
        void onWritable() {
            if (qos == 0) pump();
        }

        @Override
        void afterRead() {
            pump();
        }

        @Override
        void onPacket(int header, ByteBuffer frame, int bodyOffset, int bodyLength) throws IOException {
            switch (Mqtt.type(header)) {
                case Mqtt.PUBACK -> {
                    if (qos == 1) release(frame.getShort(bodyOffset) & 0xFFFF);
                }
                case Mqtt.PUBREC -> {
                    int packetId = frame.getShort(bodyOffset) & 0xFFFF;
                    if (bodyLength > 2 && (frame.get(bodyOffset + 2) & 0xFF) >= 0x80) {
                        errors.add("PUBREC with reason code " + (frame.get(bodyOffset + 2) & 0xFF));
                        release(packetId);
                        return;
                    }
                    ensureRoom(4);
                    Mqtt.putAck(out, Mqtt.PUBREL, packetId);
                }
                case Mqtt.PUBCOMP -> release(frame.getShort(bodyOffset) & 0xFFFF);
                case Mqtt.PINGRESP -> { }
                default -> errors.add("publisher " + id + " got unexpected packet type " + Mqtt.type(header));
            }
        }

        private void release(int packetId) {
            if (!inUse[packetId]) {
                errors.add("publisher " + id + " got an acknowledgement for unknown packet id " + packetId);
                return;
            }
            inUse[packetId] = false;
            inflight--;
            acked++;
        }

        @Override
        void onFailed(String reason) {
            errors.add("publisher " + id + ": " + reason);
            if (!started) ready.countDown();
            stopped = true;
            inflight = 0;
            if (started && !finished) finish(System.nanoTime());
        }
    }
}
