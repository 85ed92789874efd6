package io.pekquitto.ops;

import io.pekquitto.shards.settings.OperationsSettings.MetricsSettings;
import io.pekquitto.shards.stats.BrokerFigures;
import io.pekquitto.shards.stats.LatencyObserver;
import io.pekquitto.shards.stats.ShardFigures;
import io.pekquitto.shards.stats.SysExtras;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * The Prometheus metrics (README, "Metrics", lists every one): the broker's figures as counters and
 * gauges per shard, read from {@link FreshFigures} at each scrape; the latency histograms, fed by the
 * shards as it happens ({@link LatencyObserver}); and the JVM's metrics. Served at {@code GET /metrics}
 * by the Prometheus client's handler on the JDK's HTTP server, on a thread of its own, never a shard's, in
 * the text formats ({@link TextScrapes}).
 */
final class Metrics implements LatencyObserver, AutoCloseable {
    /** From 50 us to 10 s: a delivery on the same machine is tens of microseconds, a stuck one seconds. */
    private static final double[] LATENCY_BOUNDS = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
            0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Histogram publishToDelivery = Histogram.builder().name("pekquitto_publish_delivery_latency_seconds")
            .help("From a PUBLISH received to the message first written to a subscriber's connection")
            .unit(Unit.SECONDS).classicUpperBounds(LATENCY_BOUNDS).classicOnly().register(registry);
    private final Histogram connectToConnAck = Histogram.builder().name("pekquitto_connect_connack_seconds")
            .help("From a connection accepted to its successful CONNACK written")
            .unit(Unit.SECONDS).classicUpperBounds(LATENCY_BOUNDS).classicOnly().register(registry);
    private FreshFigures figures;
    private HttpServer server;
    private ExecutorService executor;

    @Override
    public void publishToDelivery(long nanos) {
        publishToDelivery.observe(Unit.nanosToSeconds(nanos));
    }

    @Override
    public void connectToConnAck(long nanos) {
        connectToConnAck.observe(Unit.nanosToSeconds(nanos));
    }

    /**
     * Registers the broker's figures and the JVM's, and starts serving them.
     *
     * @throws IllegalStateException if the port cannot be bound (the message names host and port)
     */
    void serve(MetricsSettings settings, FreshFigures brokerFigures, SysExtras cluster) {
        this.figures = brokerFigures;
        registerBrokerFigures();
        if (cluster != SysExtras.NONE) registerClusterFigures(cluster);
        JvmMetrics.builder().register(registry);
        try {
            server = HttpServer.create(new InetSocketAddress(settings.host(), settings.port()), 0);
            var handler = new MetricsHandler(registry);
            server.createContext("/metrics", exchange -> handler.handle(new TextScrapes(exchange)));
            executor = Executors.newSingleThreadExecutor(runnable -> {
                var thread = new Thread(runnable, "pekquitto-metrics");
                thread.setDaemon(true);
                return thread;
            });
            server.setExecutor(executor);
            server.start();
        } catch (IOException e) {
            throw new IllegalStateException("metrics: cannot bind " + settings.host() + ":" + settings.port() + ": " + e.getMessage(), e);
        }
    }

    /** Where {@code GET /metrics} is served. */
    InetSocketAddress address(MetricsSettings settings) {
        return new InetSocketAddress(settings.host(), server.getAddress().getPort());
    }

    private void registerBrokerFigures() {
        counter("pekquitto_packets_received", "MQTT packets received from clients, of every type", ShardFigures::packetsReceived);
        counter("pekquitto_packets_sent", "MQTT packets sent to clients, of every type", ShardFigures::packetsSent);
        counter("pekquitto_bytes_received", "Bytes received from clients", ShardFigures::bytesReceived);
        counter("pekquitto_bytes_sent", "Bytes sent to clients", ShardFigures::bytesSent);
        counter("pekquitto_publish_received", "PUBLISH packets received from clients", ShardFigures::publishReceived);
        counter("pekquitto_publish_sent", "PUBLISH packets sent to clients", ShardFigures::publishSent);
        counter("pekquitto_publish_payload_bytes_received", "Payload bytes of the PUBLISHes received", ShardFigures::publishBytesReceived);
        counter("pekquitto_publish_payload_bytes_sent", "Payload bytes of the PUBLISHes sent", ShardFigures::publishBytesSent);
        CounterWithCallback.builder().name("pekquitto_publish_dropped")
                .help("Messages a client did not get: attached (its queue full, or QoS 0 while it does not read), "
                        + "offline (its session's queue full), mesh (QoS 0 to an overloaded shard), "
                        + "memory (the memory budget or the client's share had no room)")
                .labelNames("shard", "reason")
                .callback(callback -> figures.get().shards().forEach(shard -> {
                    var id = Integer.toString(shard.shard());
                    callback.call(shard.publishDropped(), id, "attached");
                    callback.call(shard.gauges().offlineDropped(), id, "offline");
                    callback.call(shard.gauges().meshQos0Dropped(), id, "mesh");
                    callback.call(shard.memory().dropped(), id, "memory");
                }))
                .register(registry);
        registerMemoryFigures();
        counter("pekquitto_congestion_timeouts", "Congested clients whose publishers stopped waiting for them",
                ShardFigures::congestionTimeouts);
        counter("pekquitto_connects", "Successful CONNACKs", ShardFigures::connects);
        counter("pekquitto_sessions_expired", "Sessions ended by their expiry interval", shard -> shard.gauges().expiredSessions());
        counter("pekquitto_mesh_batches", "Batches of messages forwarded to other shards", shard -> shard.gauges().meshBatches());
        gauge("pekquitto_connections", "Open client connections, parked ones included", shard -> shard.gauges().connections());
        gauge("pekquitto_connections_parked", "Parked connections (idle, without an actor)", shard -> shard.gauges().parked());
        gauge("pekquitto_sessions", "Sessions held, with a connection or not", shard -> shard.gauges().sessions());
        gauge("pekquitto_sessions_offline", "Sessions without a connection", shard -> shard.gauges().offlineSessions());
        gauge("pekquitto_subscriptions", "Subscriptions of the sessions held", shard -> shard.gauges().subscriptions());
        gauge("pekquitto_messages_queued", "Messages queued or in flight, in the heap or the store", shard -> shard.gauges().queued());
        brokerGauge("pekquitto_retained_messages", "Retained messages", BrokerFigures::retained);
        brokerGauge("pekquitto_connections_maximum", "The most connections open at once, as sampled", BrokerFigures::maximumConnected);
        brokerGauge("pekquitto_store_bytes", "Bytes the store takes on disk", figures -> figures.store().bytes());
        brokerGauge("pekquitto_store_free_bytes", "Bytes free for the store on its filesystem (-1: no store on disk)",
                figures -> figures.store().freeBytes());
        brokerGauge("pekquitto_store_failing", "1 while the store cannot write (QoS 1/2 PUBLISHes and persistent sessions "
                + "are refused), else 0", figures -> figures.store().failing() ? 1 : 0);
        CounterWithCallback.builder().name("pekquitto_store_refused")
                .help("PUBLISHes and CONNECTs refused because the store could not write")
                .callback(callback -> callback.call(figures.get().store().refused()))
                .register(registry);
        CounterWithCallback.builder().name("pekquitto_store_failures")
                .help("Times the store started failing to write")
                .callback(callback -> callback.call(figures.get().store().failures()))
                .register(registry);
        brokerGauge("pekquitto_uptime_seconds", "Seconds since the broker started", BrokerFigures::uptimeSeconds);
        // Broker-wide: refused before any shard serves them. Per listener, not per client: no client label anywhere.
        CounterWithCallback.builder().name("pekquitto_connections_refused")
                .help("Connections closed as they were accepted, over their listener's max-connections")
                .callback(callback -> callback.call(figures.get().connectionsRefused()))
                .register(registry);
    }

    /** The memory budgets (README, "Memory budgets"): per shard, what is used of its part and what it refused. */
    private void registerMemoryFigures() {
        gauge("pekquitto_memory_used_bytes", "Bytes counted against the shard's memory budget: what clients hold in the heap, "
                + "its part of the retained messages, an estimate per session", shard -> shard.memory().used());
        gauge("pekquitto_memory_budget_bytes", "The shard's part of memory.budget (0: no budget)", shard -> shard.memory().budget());
        counter("pekquitto_memory_disconnects", "Clients disconnected with 0x97 for holding more than their fair share too long",
                shard -> shard.memory().disconnected());
        CounterWithCallback.builder().name("pekquitto_memory_refused")
                .help("What the memory budget refused: session (a CONNECT that would make a new persistent session), "
                        + "retained (a retained message not retained)")
                .labelNames("shard", "what")
                .callback(callback -> figures.get().shards().forEach(shard -> {
                    var id = Integer.toString(shard.shard());
                    callback.call(shard.memory().sessionsRefused(), id, "session");
                    callback.call(shard.memory().retainedRefused(), id, "retained");
                }))
                .register(registry);
    }

    private void counter(String name, String help, ToLongFunction<ShardFigures> figure) {
        CounterWithCallback.builder().name(name).help(help).labelNames("shard")
                .callback(callback -> figures.get().shards().forEach(
                        shard -> callback.call(figure.applyAsLong(shard), Integer.toString(shard.shard()))))
                .register(registry);
    }

    private void gauge(String name, String help, ToLongFunction<ShardFigures> figure) {
        GaugeWithCallback.builder().name(name).help(help).labelNames("shard")
                .callback(callback -> figures.get().shards().forEach(
                        shard -> callback.call(figure.applyAsLong(shard), Integer.toString(shard.shard()))))
                .register(registry);
    }

    /** A node of a cluster: its membership as this node sees it, from the figures it publishes under $SYS. */
    private void registerClusterFigures(SysExtras cluster) {
        clusterGauge(cluster, "pekquitto_cluster_nodes", "Members of the cluster that are Up, as this node sees them", "cluster/nodes");
        clusterGauge(cluster, "pekquitto_cluster_members", "Members of the cluster in any state (joining, up, leaving...)",
                "cluster/members");
        clusterGauge(cluster, "pekquitto_cluster_unreachable", "Members this node's failure detector finds unreachable",
                "cluster/unreachable");
    }

    private void clusterGauge(SysExtras cluster, String name, String help, String topic) {
        GaugeWithCallback.builder().name(name).help(help)
                .callback(callback -> callback.call(Double.parseDouble(cluster.topics().getOrDefault(topic, "0"))))
                .register(registry);
    }

    private void brokerGauge(String name, String help, ToDoubleFunction<BrokerFigures> figure) {
        GaugeWithCallback.builder().name(name).help(help)
                .callback(callback -> callback.call(figure.applyAsDouble(figures.get())))
                .register(registry);
    }

    @Override
    public synchronized void close() {
        if (server != null) server.stop(0);
        if (executor != null) executor.shutdown();
        server = null;
    }
}
