package io.pekquitto.shards.session;

/**
 * Hands out non-zero packet identifiers ([MQTT-2.2.1-3]) for outgoing QoS 1/2 PUBLISHes, cycling
 * through 1..65535 and skipping identifiers still in use ([MQTT-2.2.1-4]: reusable only once the
 * exchange has completed). The caller asks only while it has a free in-flight slot, and the window is
 * at most 65,535, so a free identifier always exists.
 */
final class PacketIdAllocator {
    private int next = 1;

    interface InUse {
        boolean contains(int packetId);
    }

    int allocate(InUse inUse) {
        for (int tries = 0; tries < 65_535; tries++) {
            int candidate = next;
            next = next == 65_535 ? 1 : next + 1;
            if (!inUse.contains(candidate)) return candidate;
        }
        throw new IllegalStateException("all 65535 packet identifiers are in use");
    }
}
