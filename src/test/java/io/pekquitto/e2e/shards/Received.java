package io.pekquitto.e2e.shards;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * What one subscriber received, in arrival order. Payloads are {@code "<source>:<sequence>"} (see
 * {@link #payload}), so a test can check each source's messages for loss, duplicates and order.
 * Client callbacks add from their own threads; tests read after {@link #awaitAtLeast}.
 */
final class Received {
    private final List<String> payloads = new ArrayList<>();

    static byte[] payload(String source, int sequence) {
        return (source + ":" + sequence).getBytes(StandardCharsets.UTF_8);
    }

    synchronized void add(byte[] payload) {
        payloads.add(new String(payload, StandardCharsets.UTF_8));
        notifyAll();
    }

    synchronized int size() {
        return payloads.size();
    }

    synchronized List<String> all() {
        return List.copyOf(payloads);
    }

    /** Waits until at least {@code count} messages have arrived; fails after {@code timeout}. */
    synchronized void awaitAtLeast(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (payloads.size() < count) {
            long left = deadline - System.nanoTime();
            if (left <= 0) fail("received " + payloads.size() + " of " + count + " messages within " + timeout);
            wait(Math.max(1, left / 1_000_000));
        }
    }

    /** The sequence numbers from {@code source}, in arrival order. */
    synchronized List<Integer> sequencesFrom(String source) {
        var prefix = source + ":";
        var sequences = new ArrayList<Integer>();
        for (var p : payloads) if (p.startsWith(prefix)) sequences.add(Integer.parseInt(p.substring(prefix.length())));
        return sequences;
    }

    /**
     * "" when {@code sequences} is exactly 0..count-1 in order; otherwise what is wrong, briefly:
     * how many are missing or duplicated, and where the order first breaks.
     */
    static String exactlyOnceInOrder(List<Integer> sequences, int count) {
        var problems = new ArrayList<String>();
        var counts = counts(sequences);
        var missing = missing(counts, count);
        if (!missing.isEmpty()) problems.add(missing.size() + " missing (first " + first(missing) + ")");
        var duplicated = duplicated(counts);
        if (!duplicated.isEmpty()) problems.add(duplicated.size() + " duplicated (first " + first(duplicated) + ")");
        for (int i = 1; i < sequences.size(); i++) {
            if (sequences.get(i) <= sequences.get(i - 1)) {
                problems.add("out of order at arrival " + i + ": " + sequences.get(i - 1) + " then " + sequences.get(i));
                break;
            }
        }
        if (problems.isEmpty() && sequences.size() != count) problems.add(sequences.size() + " received, not " + count);
        return String.join("; ", problems);
    }

    static Map<Integer, Integer> counts(List<Integer> sequences) {
        var counts = new HashMap<Integer, Integer>();
        for (var s : sequences) counts.merge(s, 1, Integer::sum);
        return counts;
    }

    static TreeSet<Integer> missing(Map<Integer, Integer> counts, int count) {
        var missing = new TreeSet<Integer>();
        for (int s = 0; s < count; s++) if (!counts.containsKey(s)) missing.add(s);
        return missing;
    }

    static TreeSet<Integer> duplicated(Map<Integer, Integer> counts) {
        var duplicated = new TreeSet<Integer>();
        counts.forEach((s, n) -> { if (n > 1) duplicated.add(s); });
        return duplicated;
    }

    private static List<Integer> first(TreeSet<Integer> set) {
        return set.stream().limit(5).toList();
    }
}
