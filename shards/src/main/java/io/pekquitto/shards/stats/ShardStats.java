package io.pekquitto.shards.stats;

import java.util.function.LongConsumer;

/**
 * What one shard counts as it works, for {@code $SYS} and the metrics: packets and bytes in and out,
 * PUBLISHes in and out, messages dropped, congestions given up. The shard and its connections share it
 * on the shard's one thread, so the counters are plain fields; others see them only in a
 * {@link ShardFigures} the shard builds on that thread. Publish-to-delivery and connect-to-CONNACK
 * times go to the {@link LatencyObserver}, which is thread-safe.
 */
public final class ShardStats {
    private final LatencyObserver latency;
    private long packetsReceived;
    private long packetsSent;
    private long bytesReceived;
    private long bytesSent;
    private long publishReceived;
    private long publishSent;
    private long publishBytesReceived;
    private long publishBytesSent;
    private long publishDropped;
    private long congestionTimeouts;
    private long connects;
    /** {@link #delivered}, made once for the shard's connections, which hand it on per acknowledgement. */
    private final LongConsumer delivered = this::delivered;

    public ShardStats(LatencyObserver latency) {
        this.latency = latency;
    }

    /** Counts nothing anyone reads: for tests of the parts that count. */
    public static ShardStats unobserved() {
        return new ShardStats(LatencyObserver.NONE);
    }

    public void bytesReceived(int count) { bytesReceived += count; }

    public void packetReceived() { packetsReceived++; }

    public void publishReceived(int payloadBytes) {
        publishReceived++;
        publishBytesReceived += payloadBytes;
    }

    /** A packet handed to the socket, {@code bytes} long; a PUBLISH counts its payload too. */
    public void packetSent(int bytes) {
        packetsSent++;
        bytesSent += bytes;
    }

    public void publishSent(int payloadBytes) {
        publishSent++;
        publishBytesSent += payloadBytes;
    }

    /** A message first sent to a client {@code nanos} after the broker received it. */
    public void delivered(long nanos) { latency.publishToDelivery(nanos); }

    /** {@link #delivered(long)} as a function, the same one every time. */
    public LongConsumer delivered() { return delivered; }

    /** A CONNACK (success) sent {@code nanos} after the connection was accepted. */
    public void connected(long nanos) {
        connects++;
        latency.connectToConnAck(nanos);
    }

    /** A message a client will not get: its queue is full, or it is QoS 0 and the client does not read. */
    public void publishDropped() { publishDropped++; }

    public void congestionTimedOut() { congestionTimeouts++; }

    /** The counters now, with the shard's gauges and its memory budget's figures. */
    public ShardFigures figures(int shard, ShardFigures.Gauges gauges, MemoryFigures memory) {
        return new ShardFigures(shard, packetsReceived, packetsSent, bytesReceived, bytesSent, publishReceived, publishSent,
                publishBytesReceived, publishBytesSent, publishDropped, congestionTimeouts, connects, gauges, memory);
    }
}
