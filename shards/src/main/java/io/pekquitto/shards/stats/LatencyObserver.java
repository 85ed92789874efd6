package io.pekquitto.shards.stats;

/**
 * Where the broker reports how long things take, for histograms (the Prometheus metrics). Called on
 * the shards' threads, concurrently: an implementation is thread-safe and does not block.
 */
public interface LatencyObserver {
    /** Reports nothing: the default, and for brokers without metrics. */
    LatencyObserver NONE = new LatencyObserver() {
        @Override public void publishToDelivery(long nanos) {}

        @Override public void connectToConnAck(long nanos) {}
    };

    /** From the PUBLISH received to the message first written to a subscriber's connection. */
    void publishToDelivery(long nanos);

    /** From the connection accepted to its successful CONNACK written. */
    void connectToConnAck(long nanos);
}
