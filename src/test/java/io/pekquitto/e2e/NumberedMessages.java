package io.pekquitto.e2e;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Messages whose payloads are numbers, received by a client id across its connections: which numbers came, and which
 * one connection got twice. A QoS 1 message in flight when its connection ends is sent again on the next one (with
 * DUP set, which Paho's MQTT 5 client does not report): that is no duplicate; one connection getting a message twice is.
 */
public final class NumberedMessages {
    private final Set<Integer> numbers = new TreeSet<>();
    private final Map<Integer, Object> receivedBy = new HashMap<>();
    private final List<Integer> twice = new ArrayList<>();

    /** What {@code connection} received. */
    public void add(List<Inbox.Message> messages, Object connection) {
        for (var message : messages) {
            int number = Integer.parseInt(message.text());
            numbers.add(number);
            if (receivedBy.put(number, connection) == connection) twice.add(number);
        }
    }

    public boolean containsAll(Set<Integer> expected) {
        return numbers.containsAll(expected);
    }

    /** The numbers of {@code expected} not received, at most 20 of them, and how many. */
    public String missing(Set<Integer> expected) {
        var missing = new TreeSet<>(expected);
        missing.removeAll(numbers);
        return missing.size() + " " + (missing.size() > 20 ? List.copyOf(missing).subList(0, 20) + "..." : missing);
    }

    /** The numbers one connection received twice. */
    public List<Integer> twice() {
        return List.copyOf(twice);
    }
}
