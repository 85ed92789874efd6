package io.pekquitto.e2e;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Unique client identifiers and topic roots, so tests sharing a broker never see each other's
 * sessions or retained messages. Client ids stay within the 23 characters every server must accept
 * ([MQTT-3.1.3-5]).
 */
public final class Names {
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final String RUN = Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36 * 36), 36);

    private Names() {}

    /** A client id such as {@code sub-k3f-17}: the role (up to 12 characters), this run, a sequence. */
    public static String clientId(String role) {
        String prefix = role.length() > 12 ? role.substring(0, 12) : role;
        return prefix + "-" + RUN + "-" + SEQUENCE.incrementAndGet();
    }

    /** A topic root such as {@code e2e/k3f-18/retain}, unique to one test. */
    public static String topic(String name) {
        return "e2e/" + RUN + "-" + SEQUENCE.incrementAndGet() + "/" + name;
    }
}
