package io.pekquitto.shards.stats;

/**
 * A counter's rate per minute, averaged over the last 1, 5 and 15 minutes with exponential decay, as
 * Mosquitto's {@code $SYS/broker/load/...} and Unix load averages: each sample moves an average
 * towards the rate of its interval by {@code 1 - e^(-interval/window)}.
 */
public final class LoadAverage {
    private static final double[] WINDOW_SECONDS = {60, 300, 900};

    private final double[] perMinute = new double[WINDOW_SECONDS.length];
    private long lastCount;
    private boolean started;

    /** The counter's value after {@code seconds} since the last sample (ignored for the first sample). */
    public void sample(long count, double seconds) {
        if (!started || seconds <= 0) {
            started = true;
            lastCount = count;
            return;
        }
        double rate = Math.max(0, count - lastCount) * 60.0 / seconds;
        lastCount = count;
        for (int i = 0; i < perMinute.length; i++) {
            double keep = Math.exp(-seconds / WINDOW_SECONDS[i]);
            perMinute[i] = rate + keep * (perMinute[i] - rate);
        }
    }

    public double oneMinute() { return perMinute[0]; }

    public double fiveMinutes() { return perMinute[1]; }

    public double fifteenMinutes() { return perMinute[2]; }
}
