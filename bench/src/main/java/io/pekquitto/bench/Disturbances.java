package io.pekquitto.bench;

import java.io.IOException;
import java.util.function.Consumer;

/**
 * What fanin and fanout can add to their load to see what one client costs the others:
 * {@code --slow-subscribers K} subscribers that stop reading, and {@code --subscription-churn N}
 * subscription changes a second on filters no publisher uses.
 */
final class Disturbances implements AutoCloseable {
    private final int slowCount;
    private final int churnRate;
    private SlowSubscribers slow;
    private SubscriptionChurn churn;

    Disturbances(Options options) {
        this.slowCount = options.integer("slow-subscribers", 0, 0, 1_000);
        this.churnRate = options.integer("subscription-churn", 0, 0, 100_000);
    }

    /** Starts them once the measured subscribers are in place; a failure goes to {@code errors}. */
    void start(Bench.Context context, String filter, int qos, Consumer<String> errors) {
        try {
            if (slowCount > 0) slow = SlowSubscribers.open(context.address(), context.runId(), filter, qos, context.v5(), slowCount);
            if (churnRate > 0) churn = SubscriptionChurn.start(context.address(), context.runId(), churnRate, context.v5());
        } catch (IOException e) {
            errors.accept("disturbances: " + e.getMessage());
        }
    }

    void describe(Report report) {
        report.put("slow_subscribers", slowCount).put("subscription_churn_per_s", churnRate);
        if (churn != null) {
            report.put("subscription_changes", churn.changes());
            if (churn.error() != null) report.error(churn.error());
        }
    }

    @Override
    public void close() {
        if (slow != null) slow.close();
        if (churn != null) churn.close();
    }
}
