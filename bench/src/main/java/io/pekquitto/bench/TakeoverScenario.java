package io.pekquitto.bench;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One client id with a persistent session (Clean Session 0, 3.1.1) and one subscription, taken over --takeovers
 * times by a new connection, alternately on --port and on --subscriber-port (another node of a cluster, or the
 * same broker): each takeover's time from opening the socket to the CONNACK, which comes once the session has
 * moved to the new connection and the peers route to it. The taken-over connection is closed by the broker.
 */
final class TakeoverScenario {
    private static final String FILTER = "bench/takeover/#";

    private final Bench.Context context;
    private final int takeovers;
    private final long[] nanos;
    private final CountDownLatch done = new CountDownLatch(1);
    private final String clientId;
    private String error;
    private int round;
    /** The index of the newest connection opened: an older one is taken over, and the broker closes it. */
    private int newest = -1;

    TakeoverScenario(Bench.Context context, Options options) {
        this.context = context;
        this.takeovers = options.integer("takeovers", 200, 1, 100_000);
        this.nanos = new long[takeovers];
        this.clientId = context.clientId("takeover");
    }

    Report run() throws InterruptedException {
        var report = new Report("takeover");
        report.put("label", context.label()).put("takeovers", takeovers);
        var loop = context.loop(0);
        loop.execute(() -> new Taker(-1).open());
        if (!done.await(60 + takeovers / 10, TimeUnit.SECONDS)) error = "takeovers did not finish: " + round + " of " + takeovers;
        context.closeLoops();
        report.say("%s%,d takeovers of one session, alternating between two ports", context.labelPrefix(), round);
        LatencyScenario.summarize(report, "takeover", Arrays.copyOf(nanos, Math.min(round, takeovers)));
        if (error != null) report.error(error);
        return report;
    }

    /** One connection of the client id: the first subscribes, each later one takes the session over. */
    private final class Taker extends Connection {
        final int index;
        final long openedAt = System.nanoTime();

        Taker(int index) {
            super(context.loop(0), index % 2 == 0 ? context.address() : context.subscriberAddress(), false, 64 * 1024, 1024);
            this.index = index;
        }

        @Override
        byte[] connectPacket() {
            return Mqtt.connect(clientId, context.keepAlive(), false, false);  // Clean Session 0: the session persists
        }

        @Override
        void onConnected() {
            if (index < 0) {
                subscribe(FILTER, 1);
                return;
            }
            nanos[index] = System.nanoTime() - openedAt;
            round = index + 1;
            next();
        }

        @Override
        void onPacket(int header, ByteBuffer frame, int bodyOffset, int bodyLength) {
            if (index < 0 && Mqtt.type(header) == Mqtt.SUBACK && granted(frame, bodyOffset, bodyLength, FILTER) >= 0) next();
        }

        private void next() {
            if (index + 1 >= takeovers) {
                disconnect();
                done.countDown();
            } else {
                newest = index + 1;
                loop.execute(() -> new Taker(index + 1).open());
            }
        }

        @Override
        void onFailed(String reason) {
            if (index < newest) return;  // taken over: the broker closed it
            if (!connected || index + 1 < takeovers) {
                error = "takeover " + index + ": " + reason;
                done.countDown();
            }
        }
    }
}
