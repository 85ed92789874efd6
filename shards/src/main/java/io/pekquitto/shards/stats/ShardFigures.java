package io.pekquitto.shards.stats;

/**
 * One shard's figures at one moment: counters since the shard started (they start again from 0 when
 * a shard is restarted after a failure) and gauges of what it holds now.
 *
 * @param packetsReceived      MQTT packets received from clients, of every type
 * @param packetsSent          MQTT packets sent to clients, of every type
 * @param publishDropped       messages an attached client did not get: its queue's limits, QoS 0 while it
 *                             does not read (offline sessions' and the mesh's drops are in the gauges)
 * @param congestionTimeouts   congested clients whose publishers stopped waiting for them
 * @param connects             successful CONNACKs
 * @param memory               the shard's memory budget: what is used of it, and what it refused
 */
public record ShardFigures(int shard, long packetsReceived, long packetsSent, long bytesReceived, long bytesSent,
                           long publishReceived, long publishSent, long publishBytesReceived, long publishBytesSent,
                           long publishDropped, long congestionTimeouts, long connects, Gauges gauges,
                           MemoryFigures memory) {

    /**
     * What the shard holds now, and the counts its parts keep themselves.
     *
     * @param connections     open network connections, parked ones included
     * @param parked          parked connections
     * @param sessions        sessions held (attached and offline)
     * @param offlineSessions persistent sessions without a connection (Mosquitto's "disconnected clients")
     * @param subscriptions   subscriptions of the sessions held
     * @param queued          messages queued or in flight for the sessions held, on disk or in the heap
     * @param retained        retained messages (every shard holds all of them)
     * @param expiredSessions sessions ended by their expiry interval, since the shard started
     * @param offlineDropped  messages an offline session could not queue (its limits), since the shard started
     * @param meshBatches     batches of forwarded messages sent to other shards
     * @param meshQos0Dropped QoS 0 messages dropped because the mesh towards a shard was overloaded
     */
    public record Gauges(int connections, int parked, int sessions, int offlineSessions, long subscriptions, long queued,
                         int retained, long expiredSessions, long offlineDropped, long meshBatches, long meshQos0Dropped) {}

    /** Every message dropped on this shard: for attached clients, offline sessions, on the mesh, and for the memory budget. */
    public long droppedTotal() {
        return publishDropped + gauges.offlineDropped() + gauges.meshQos0Dropped() + memory.dropped();
    }
}
