package io.pekquitto.e2e.ops;

import static io.pekquitto.e2e.RawClient.PUBACK;
import static io.pekquitto.e2e.RawClient.PUBLISH;
import static io.pekquitto.e2e.RawClient.SUBACK;
import static io.pekquitto.e2e.RawClient.V5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.BrokerExtension;
import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RawClient.Connect;
import io.pekquitto.e2e.RawClient.Filter;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code GET /metrics}: the broker's counters and gauges per shard, the latency histograms and the JVM's metrics. */
class MetricsIT {
    @RegisterExtension
    static final BrokerExtension broker = BrokerExtension.inProcess("shards = 2\nmetrics { enabled = true, port = 0 }");

    private static String scrape() throws IOException, InterruptedException {
        return scrape("*/*").body();
    }

    private static HttpResponse<String> scrape(String accept) throws IOException, InterruptedException {
        var address = broker.pekquitto().metricsAddress().orElseThrow();
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + address.getPort() + "/metrics"))
                .header("Accept", accept).timeout(Duration.ofSeconds(10)).build();
        var response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        return response;
    }

    @Test
    void aScrapeThatAsksForProtobufFirstGetsTheTextFormat() throws Exception {
        // What a Prometheus server with native histograms asks: the jar has no protobuf format, so text comes back.
        var response = scrape("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,"
                + "text/plain;version=0.0.4;q=0.3,*/*;q=0.1");
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"), response.headers().toString());
        assertTrue(response.body().contains("pekquitto_packets_received"), response.body());
    }

    /** The sum over every labelled sample of {@code name} (a counter is exposed with {@code _total}). */
    private static double sum(String metrics, String name) {
        var sample = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*})? (\\S+)$").matcher(metrics);
        double total = 0;
        boolean found = false;
        while (sample.find()) {
            total += Double.parseDouble(sample.group(2));
            found = true;
        }
        assertTrue(found, () -> name + " not in\n" + metrics);
        return total;
    }

    @Test
    void theMetricsMoveWithTheLoad() throws Exception {
        var before = scrape();
        try (var subscriber = broker.raw(Connect.of(V5, "metrics-sub"));
             var publisher = broker.raw(Connect.of(V5, "metrics-pub"))) {
            subscriber.send(RawClient.subscribe(V5, 1, new Filter("metered/#", 1)));
            subscriber.expect(SUBACK);
            for (int i = 1; i <= 10; i++) publisher.send(RawClient.publish(V5, "metered/" + i, 1, i, "payload"));
            for (int i = 1; i <= 10; i++) publisher.expect(PUBACK);
            for (int i = 1; i <= 10; i++) {
                var delivery = subscriber.expect(PUBLISH).publish(V5);
                subscriber.send(RawClient.ack(PUBACK, delivery.packetId()));
            }
            // A scrape reuses figures gathered within the last half second, each shard's at its own time (the
            // publisher's shard counts what it received, the subscriber's what it sent and its connection):
            // scrape until every shard's figures are new.
            var after = scrapeUntil("figures that count the two clients and the ten publishes, received and sent",
                    metrics -> sum(metrics, "pekquitto_publish_received_total") >= sum(before, "pekquitto_publish_received_total") + 10
                            && sum(metrics, "pekquitto_publish_sent_total") >= sum(before, "pekquitto_publish_sent_total") + 10
                            && sum(metrics, "pekquitto_connections") >= sum(before, "pekquitto_connections") + 2);

            assertEquals(10, sum(after, "pekquitto_publish_received_total") - sum(before, "pekquitto_publish_received_total"));
            assertEquals(10, sum(after, "pekquitto_publish_sent_total") - sum(before, "pekquitto_publish_sent_total"));
            assertEquals(70, sum(after, "pekquitto_publish_payload_bytes_received_total")
                    - sum(before, "pekquitto_publish_payload_bytes_received_total"));
            assertEquals(2, sum(after, "pekquitto_connections") - sum(before, "pekquitto_connections"));
            assertEquals(1, sum(after, "pekquitto_subscriptions") - sum(before, "pekquitto_subscriptions"));
            assertTrue(sum(after, "pekquitto_publish_delivery_latency_seconds_count") >= 10, after);
            assertTrue(sum(after, "pekquitto_connect_connack_seconds_count") >= 2, after);
            assertTrue(after.contains("pekquitto_connections{shard=\"1\"}"), "per shard");
            assertTrue(after.contains("pekquitto_publish_dropped_total{reason=\"mesh\",shard=\"0\"}"), after);
            assertTrue(after.contains("pekquitto_publish_dropped_total{reason=\"memory\",shard=\"0\"}"), after);
            // The memory budgets: each shard's part and what is counted against it (two sessions at least).
            assertTrue(sum(after, "pekquitto_memory_budget_bytes") > 0, after);
            assertTrue(sum(after, "pekquitto_memory_used_bytes") > 0, after);
            assertTrue(after.contains("pekquitto_memory_disconnects_total{shard=\"1\"}"), after);
            assertTrue(after.contains("pekquitto_memory_refused_total{shard=\"0\",what=\"session\"}"), after);
            assertTrue(sum(after, "jvm_memory_used_bytes") > 0, "the JVM's metrics");
            assertTrue(sum(after, "pekquitto_uptime_seconds") >= 0);
        }
    }

    private static String scrapeUntil(String what, Predicate<String> done) {
        return Eventually.await(Duration.ofSeconds(10), what, MetricsIT::scrape, done);
    }
}
