package io.pekquitto.e2e.security;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.hivemq.client.mqtt.MqttClientSslConfig;
import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.e2e.interop.ChildProcess;
import io.pekquitto.e2e.interop.MosquittoBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The bridges of Mosquitto's own tests (ops test resources mosquitto-configs/, README there) run: a real Mosquitto
 * as the remote on the port the bridge's address names (a free one, as MosquittoConfigs rewrites it), and on the
 * configuration's own listener pekquitto started on the conversion, then Mosquitto started on the original. Each
 * message published on one side is looked for on the other under the topic Mosquitto's prefixes make of it, and
 * pekquitto must deliver the same topics as Mosquitto.
 */
class MosquittoBridgeConfigsIT {
    /** How long a bridge may take to carry its first message (its link comes up, its subscriptions take). */
    private static final Duration CARRIED = Duration.ofSeconds(30);
    /** How long the receiving side is listened to once the messages are sent. */
    private static final Duration SETTLE = Duration.ofMillis(1500);
    private static final MosquittoConfigs configs = MosquittoConfigs.create("mosquitto-bridge-configs");

    @AfterAll
    static void deleteFiles() {
        configs.close();
    }

    /** What a test does with a client of the bridging broker and one of the remote; returns what was received where. */
    private interface Exchange {
        Set<String> run(Hive5 local, Hive5 remote) throws Exception;
    }

    @Test
    @Timeout(240)
    @DisplayName("Mosquitto's br2b remapping test: what is published here goes to the remote under its remote prefix, as with Mosquitto")
    void outgoingTopicsRemapped() throws Exception {
        var original = configs.write("06-bridge-br2b-remapping.conf");
        // The last two match no topic line: neither goes out.
        var published = List.of("local/topic/a", "local2/topic/prefix/b", "local3/topic/c/value", "local4/topic/d",
                "local2/topic/other/e", "elsewhere/f");
        onBoth(original, false, (local, remote) -> {
            remote.subscribe("#");
            return carried(local, remote, "local/topic/probe", "remote/topic/probe", published);
        }, Set.of("remote/topic/a", "remote2/topic/prefix/b", "remote3/topic/c/value", "remote4/tipic/d"));
    }

    @Test
    @Timeout(240)
    @DisplayName("Mosquitto's b2br remapping test: what the remote publishes comes here under its local prefix, $SYS included, as with Mosquitto")
    void incomingTopicsRemapped() throws Exception {
        var original = configs.write("06-bridge-b2br-remapping.conf");
        var published = List.of("remote/topic/a", "remote2/topic/prefix/b", "remote3/topic/c/value", "remote4/tipic/d",
                "remote2/topic/other/e", "elsewhere/f");
        // The remote's retained $SYS/broker/clients/total comes in too, as "test/mosquitto/org" + "clients/total".
        onBoth(original, false, (local, remote) -> {
            local.subscribe("#");
            return carried(remote, local, "remote/topic/probe", "local/topic/probe", published);
        }, Set.of("local/topic/a", "local2/topic/prefix/b", "local3/topic/c/value", "local4/topic/d",
                "test/mosquitto/orgclients/total"));
    }

    @Test
    @Timeout(240)
    @DisplayName("Mosquitto's TLS bridge test: a message goes out and one comes in over TLS to a remote on the test CA, as with Mosquitto")
    void overTls() throws Exception {
        var original = configs.write("08-ssl-bridge.conf");
        // "bridge/# both" over MQTT 3.1.1: the local client listens to what comes in only, so that an echo of what it
        // sent, which a 3.1.1 bridge without the bridge bit gets back from the remote, is not counted.
        onBoth(original, true, (local, remote) -> {
            remote.subscribe("bridge/out/#");
            local.subscribe("bridge/in/#");
            var received = new TreeSet<String>();
            carried(local, remote, "bridge/out/probe", "bridge/out/probe", List.of("bridge/out/a"))
                    .forEach(topic -> received.add("at the remote: " + topic));
            carried(remote, local, "bridge/in/probe", "bridge/in/probe", List.of("bridge/in/b"))
                    .forEach(topic -> received.add("here: " + topic));
            return received;
        }, Set.of("at the remote: bridge/out/a", "here: bridge/in/b"));
    }

    /**
     * Runs {@code exchange} with pekquitto on the conversion of {@code original}, then with Mosquitto on it, each
     * time with a fresh remote (over TLS when {@code tlsRemote}); asserts that both received the same, {@code expected}.
     */
    private static void onBoth(Path original, boolean tlsRemote, Exchange exchange, Set<String> expected) throws Exception {
        var converted = MosquittoConfigsIT.converted(original);
        Set<String> pekquitto;
        try (var remote = remote(tlsRemote); var bridging = RunnableJar.start(converted)) {
            MosquittoConfigsIT.awaitListening(configs.port(1889), bridging::log);
            pekquitto = exchange(exchange, tlsRemote, () -> "pekquitto: " + bridging.log() + "\nremote: " + remote.output());
            remote.terminate();  // waited for: the next remote takes its port
        }
        Set<String> mosquitto;
        try (var remote = remote(tlsRemote);
             var bridging = ChildProcess.start(List.of(MosquittoBroker.program("mosquitto"), "-c", original.toString()))) {
            bridging.awaitLine(line -> line.contains(" running"));
            mosquitto = exchange(exchange, tlsRemote, () -> "Mosquitto: " + bridging.output() + "\nremote: " + remote.output());
            bridging.terminate();
            remote.terminate();
        }
        assertEquals(mosquitto, pekquitto, "pekquitto's bridge delivered other topics than Mosquitto's");
        assertEquals(new TreeSet<>(expected), pekquitto);
    }

    private static Set<String> exchange(Exchange exchange, boolean tlsRemote, MosquittoConfigsIT.Log log) throws Exception {
        var ssl = tlsRemote ? Optional.of(tls()) : Optional.<MqttClientSslConfig>empty();
        try (var local = Hive5.connect(Hive5.build(configs.port(1889), Names.clientId("here"), Optional.empty()), Optional.empty(), Optional.empty());
             var remote = Hive5.connect(Hive5.build(configs.port(1888), Names.clientId("there"), ssl), Optional.empty(), Optional.empty())) {
            return exchange.run(local, remote);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\n" + log.read(), e);
        }
    }

    /**
     * Publishes {@code probe} from {@code from} until {@code probeThere} reaches {@code to} (the bridge is up and
     * subscribed), then each of {@code topics} once; returns the topics {@code to} received meanwhile and for
     * {@link #SETTLE} after, probes aside.
     */
    private static Set<String> carried(Hive5 from, Hive5 to, String probe, String probeThere, List<String> topics) throws Exception {
        var received = new TreeSet<String>();
        boolean through = false;
        for (long deadline = System.nanoTime() + CARRIED.toNanos(); !through && System.nanoTime() < deadline; ) {
            from.publish(probe, 1, "probe");
            for (var message = to.inbox(Duration.ofMillis(300)); message.isPresent(); message = to.inbox(Duration.ofMillis(50))) {
                var topic = message.get().getTopic().toString();
                if (topic.equals(probeThere)) through = true;
                else received.add(topic);
            }
        }
        if (!through) throw new AssertionError(probe + " did not come through as " + probeThere + " within " + CARRIED);
        for (var topic : topics) from.publish(topic, 1, "message");
        for (long deadline = System.nanoTime() + SETTLE.toNanos(); System.nanoTime() < deadline; ) {
            var message = to.inbox(Duration.ofMillis(Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
            message.map(m -> m.getTopic().toString()).filter(topic -> !topic.equals(probeThere)).ifPresent(received::add);
        }
        return received;
    }

    /** Mosquitto as the bridge's remote on the port its address names, over TLS with the test's server certificate if asked. */
    private static ChildProcess remote(boolean tls) throws Exception {
        var lines = new ArrayList<>(List.of("listener " + configs.port(1888) + " 127.0.0.1", "allow_anonymous true",
                // As root, Mosquitto would switch to its own user, who cannot read the test's directory.
                "user " + System.getProperty("user.name")));
        if (tls) {
            lines.addAll(List.of("cafile " + configs.certificates().caFile().toAbsolutePath(),
                    "certfile " + configs.certificates().server().certificateFile().toAbsolutePath(),
                    "keyfile " + configs.certificates().server().keyFile().toAbsolutePath()));
        }
        var file = Files.write(configs.directory().resolve("remote.conf"), lines);
        var remote = ChildProcess.start(List.of(MosquittoBroker.program("mosquitto"), "-c", file.toString()));
        try {
            remote.awaitLine(line -> line.contains(" running"));
            return remote;
        } catch (RuntimeException | Error | InterruptedException e) {
            remote.close();
            throw e;
        }
    }

    private static MqttClientSslConfig tls() {
        return TlsClients.hiveMq(configs.certificates().ca().certificate(), Optional.empty());
    }
}
