package io.pekquitto.e2e.shards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.Inbox;
import io.pekquitto.e2e.NumberedMessages;
import io.pekquitto.e2e.V5Client;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A persistent session taken over again and again by a connection on another shard of one broker, while a publisher
 * on a fourth shard publishes QoS 1 messages without pause (docs/shards-and-mesh.md, A session crossing): every
 * message the publisher had acknowledged reaches the client, and no connection gets one twice (one in flight at a
 * takeover is sent again on the next connection, as QoS 1 allows).
 * Before the crossings, a message published while the session moved could be lost.
 */
@Timeout(120)
class SessionCrossingIT {
    private static final String TOPIC = "crossing/t";
    private static final int MOVES = 12;
    private static final Duration RECEIVE = Duration.ofSeconds(20);

    @RegisterExtension
    static final MeshBroker broker = MeshBroker.withShards(4);

    @Test
    void aSessionTakenOverFromShardToShardWhilePublishedToMissesNothing() throws Exception {
        var clientId = Clients.id("crossing");
        var publisher = Clients.v5(broker, 3, Clients.id("crossing-pub"));
        var subscriber = broker.on(0, () -> connect(clientId));
        subscriber.subscribe(TOPIC, 1);
        var publishing = new AtomicBoolean(true);
        var acknowledged = new AtomicInteger();
        var published = CompletableFuture.runAsync(() -> {
            while (publishing.get()) {
                var payload = Integer.toString(acknowledged.get()).getBytes(StandardCharsets.UTF_8);
                publisher.publishWith().topic(TOPIC).qos(MqttQos.AT_LEAST_ONCE).payload(payload).send().join();
                acknowledged.incrementAndGet();  // PUBACK received
            }
        });
        var received = new NumberedMessages();
        try {
            for (int move = 1; move <= MOVES; move++) {
                int before = acknowledged.get();
                // Moves while messages flow.
                Eventually.await(RECEIVE, "20 more messages acknowledged", () -> acknowledged.get() >= before + 20);
                var taken = subscriber;
                subscriber = broker.on(move % 3, () -> connect(clientId));  // the old connection gets 0x8E
                assertTrue(subscriber.sessionPresent(), "session present 1, move " + move);
                taken.disconnected().get(5, TimeUnit.SECONDS);
                received.add(taken.inbox().within(Duration.ofMillis(50)), taken);
                taken.close();
            }
        } finally {
            publishing.set(false);
            published.get(10, TimeUnit.SECONDS);
            Clients.disconnect(publisher);
        }
        var expected = new TreeSet<Integer>();
        for (int i = 0; i < acknowledged.get(); i++) expected.add(i);
        var last = subscriber;
        Eventually.await(RECEIVE, () -> "every acknowledged message; lost, of " + expected.size() + ": " + received.missing(expected), () -> {
            if (!received.containsAll(expected)) received.add(last.inbox().within(Duration.ofMillis(200)), last);
            return received.containsAll(expected);
        });
        received.add(subscriber.inbox().within(Inbox.QUIET), subscriber);
        subscriber.close();
        assertTrue(received.containsAll(expected), () -> "lost, of " + expected.size() + ": " + received.missing(expected));
        assertEquals(List.of(), received.twice(), "delivered twice to one connection");
    }

    private static V5Client connect(String clientId) throws Exception {
        return V5Client.connect(broker.port(), clientId, options -> {
            options.setCleanStart(false);
            options.setSessionExpiryInterval(300L);
            options.setReceiveMaximum(1000);
        });
    }
}
