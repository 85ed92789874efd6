package io.pekquitto.shards.stats;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * The {@code $SYS/broker/...} topics, with Mosquitto's names and meanings (its {@code sys_tree.c}) and
 * pekquitto's own ({@code clients/parked}, {@code clients/refused}, {@code mesh/...}, {@code memory/...},
 * {@code shards/N/...}). Each sample gives
 * the topics whose value changed since the last one, as Mosquitto publishes: they are retained, so a
 * new subscriber to {@code $SYS/#} gets every value at once.
 */
public final class SysTopics {
    private static final String PREFIX = "$SYS/broker/";
    /** The counters whose rates go to {@code load/NAME/1min}, {@code 5min} and {@code 15min}, as Mosquitto's. */
    private static final Map<String, ToLongFunction<ShardFigures>> LOADS = new LinkedHashMap<>();

    static {
        LOADS.put("messages/received", ShardFigures::packetsReceived);
        LOADS.put("messages/sent", ShardFigures::packetsSent);
        LOADS.put("publish/received", ShardFigures::publishReceived);
        LOADS.put("publish/sent", ShardFigures::publishSent);
        LOADS.put("publish/dropped", ShardFigures::droppedTotal);
        LOADS.put("bytes/received", ShardFigures::bytesReceived);
        LOADS.put("bytes/sent", ShardFigures::bytesSent);
        LOADS.put("connections", ShardFigures::connects);
    }

    private final String version;
    private final Map<String, String> published = new LinkedHashMap<>();
    private final Map<String, LoadAverage> loads = new LinkedHashMap<>();

    public SysTopics(String version) {
        this.version = version;
    }

    /** The topics whose value is new, in a stable order; {@code seconds} since the last sample. */
    public Map<String, String> changed(BrokerFigures figures, double seconds) {
        return changed(figures, Map.of(), seconds);
    }

    /** As {@link #changed(BrokerFigures, double)}, with {@code extras} ({@link SysExtras}) after the broker's own topics. */
    public Map<String, String> changed(BrokerFigures figures, Map<String, String> extras, double seconds) {
        var now = new LinkedHashMap<String, String>();
        now.put("version", "pekquitto " + version);
        now.put("uptime", figures.uptimeSeconds() + " seconds");
        long connected = figures.connected();
        long disconnected = figures.disconnected();
        now.put("clients/connected", Long.toString(connected));
        now.put("clients/active", Long.toString(connected));  // Mosquitto's older name
        now.put("clients/disconnected", Long.toString(disconnected));
        now.put("clients/inactive", Long.toString(disconnected));
        now.put("clients/total", Long.toString(connected + disconnected));
        now.put("clients/maximum", Long.toString(figures.maximumConnected()));
        now.put("clients/expired", Long.toString(figures.sum(shard -> shard.gauges().expiredSessions())));
        now.put("clients/parked", Long.toString(figures.sum(shard -> shard.gauges().parked())));
        now.put("clients/refused", Long.toString(figures.connectionsRefused()));  // over a listener's max-connections
        counter(now, figures, "messages/received", ShardFigures::packetsReceived);  // MQTT packets of every type
        counter(now, figures, "messages/sent", ShardFigures::packetsSent);
        counter(now, figures, "bytes/received", ShardFigures::bytesReceived);
        counter(now, figures, "bytes/sent", ShardFigures::bytesSent);
        counter(now, figures, "publish/messages/received", ShardFigures::publishReceived);
        counter(now, figures, "publish/messages/sent", ShardFigures::publishSent);
        counter(now, figures, "publish/messages/dropped", ShardFigures::droppedTotal);
        counter(now, figures, "publish/bytes/received", ShardFigures::publishBytesReceived);
        counter(now, figures, "publish/bytes/sent", ShardFigures::publishBytesSent);
        now.put("subscriptions/count", Long.toString(figures.sum(shard -> shard.gauges().subscriptions())));
        now.put("retained messages/count", Long.toString(figures.retained()));
        now.put("store/messages/count", Long.toString(figures.sum(shard -> shard.gauges().queued())));
        now.put("store/bytes", Long.toString(figures.store().bytes()));
        now.put("store/state", figures.store().state());  // ok, or failing: what needs a write is refused
        now.put("store/refused", Long.toString(figures.store().refused()));
        now.put("store/free-bytes", Long.toString(figures.store().freeBytes()));
        now.put("heap/current", Long.toString(figures.heapUsed()));
        now.put("heap/maximum", Long.toString(figures.heapMax()));
        now.put("mesh/batches", Long.toString(figures.sum(shard -> shard.gauges().meshBatches())));
        now.put("mesh/qos0-dropped", Long.toString(figures.sum(shard -> shard.gauges().meshQos0Dropped())));
        now.put("congestion/timeouts", Long.toString(figures.sum(ShardFigures::congestionTimeouts)));
        memory(now, figures);
        for (var shard : figures.shards()) perShard(now, shard);
        loads(now, figures, seconds);
        now.putAll(extras);

        var changed = new LinkedHashMap<String, String>();
        now.forEach((topic, value) -> {
            if (!value.equals(published.put(PREFIX + topic, value))) changed.put(PREFIX + topic, value);
        });
        return changed;
    }

    /** The memory budgets (README, "Memory budgets"): what is used of them, and what they refused. */
    private static void memory(Map<String, String> now, BrokerFigures figures) {
        now.put("memory/used", Long.toString(figures.sum(shard -> shard.memory().used())));
        now.put("memory/budget", Long.toString(figures.sum(shard -> shard.memory().budget())));
        now.put("memory/dropped", Long.toString(figures.sum(shard -> shard.memory().dropped())));
        now.put("memory/disconnected", Long.toString(figures.sum(shard -> shard.memory().disconnected())));
        now.put("memory/sessions-refused", Long.toString(figures.sum(shard -> shard.memory().sessionsRefused())));
        now.put("memory/retained-refused", Long.toString(figures.sum(shard -> shard.memory().retainedRefused())));
    }

    private static void counter(Map<String, String> now, BrokerFigures figures, String name,
                                ToLongFunction<ShardFigures> figure) {
        now.put(name, Long.toString(figures.sum(figure)));
    }

    private void loads(Map<String, String> now, BrokerFigures figures, double seconds) {
        LOADS.forEach((name, figure) -> {
            var load = loads.computeIfAbsent(name, n -> new LoadAverage());
            load.sample(figures.sum(figure), seconds);
            now.put("load/" + name + "/1min", format(load.oneMinute()));
            now.put("load/" + name + "/5min", format(load.fiveMinutes()));
            now.put("load/" + name + "/15min", format(load.fifteenMinutes()));
        });
    }

    private static void perShard(Map<String, String> now, ShardFigures shard) {
        var prefix = "shards/" + shard.shard() + "/";
        var gauges = shard.gauges();
        now.put(prefix + "clients/connected", Long.toString(gauges.connections()));
        now.put(prefix + "clients/parked", Long.toString(gauges.parked()));
        now.put(prefix + "sessions", Long.toString(gauges.sessions()));
        now.put(prefix + "subscriptions/count", Long.toString(gauges.subscriptions()));
        now.put(prefix + "messages/queued", Long.toString(gauges.queued()));
        now.put(prefix + "publish/messages/received", Long.toString(shard.publishReceived()));
        now.put(prefix + "publish/messages/sent", Long.toString(shard.publishSent()));
        now.put(prefix + "publish/messages/dropped", Long.toString(shard.droppedTotal()));
        now.put(prefix + "mesh/batches", Long.toString(gauges.meshBatches()));
        now.put(prefix + "mesh/qos0-dropped", Long.toString(gauges.meshQos0Dropped()));
        now.put(prefix + "memory/used", Long.toString(shard.memory().used()));
        now.put(prefix + "memory/budget", Long.toString(shard.memory().budget()));
    }

    private static String format(double value) {
        return String.format(Locale.ROOT, "%.2f", value);
    }
}
