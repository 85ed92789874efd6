package io.pekquitto.shards.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.protocol.ProtocolVersion;
import io.pekquitto.protocol.QoS;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The {@code bridges} list: each entry over bridge-defaults, each refusal naming its key's path. */
class BridgeSettingsTest {

    private static BridgeSettings bridge(String entry) {
        return BrokerSettings.parse("bridges = [{ " + entry + " }]").bridges().get(0);
    }

    private static String refusal(String entry) {
        return assertThrows(ConfigurationException.class, () -> bridge(entry)).getMessage();
    }

    @Test
    void noBridgeByDefault() {
        assertEquals(List.of(), BrokerSettings.defaults().bridges());
    }

    @Test
    void anEntryGivesWhatDiffersFromTheDefaults() {
        var bridge = bridge("name = cloud, addresses = [\"example.com:8883\", \"backup.example.com\"], topics = [{ pattern = \"a/#\" }]");
        assertEquals("cloud", bridge.name());
        assertEquals(List.of(new BridgeSettings.Address("example.com", 8883), new BridgeSettings.Address("backup.example.com", 1883)),
                bridge.addresses());
        assertEquals(BridgeSettings.StartType.AUTOMATIC, bridge.startType());
        assertEquals(ProtocolVersion.MQTT_3_1_1, bridge.protocolVersion());
        assertTrue(bridge.clientId().endsWith(".cloud"), bridge.clientId());
        assertEquals("local." + bridge.clientId(), bridge.localClientId());
        assertEquals("$SYS/broker/connection/" + bridge.clientId() + "/state", bridge.notificationTopic());
        assertEquals(Duration.ofSeconds(5), bridge.restartBase());
        assertEquals(Duration.ofSeconds(30), bridge.restartCap());
        assertEquals(60, bridge.keepAliveSeconds());
        assertEquals(20, bridge.maxInflight());
        assertTrue(bridge.tryPrivate());
        assertTrue(bridge.notifications());
        assertEquals(Optional.empty(), bridge.tls());
        assertEquals(List.of(new BridgeSettings.Topic("a/#", BridgeSettings.Direction.OUT, QoS.AT_MOST_ONCE)), bridge.topics());
    }

    @Test
    void everyKeyIsRead() {
        var bridge = bridge("""
                name = b, addresses = ["[::1]:1884"], round-robin = true, start-type = lazy, threshold = 3, idle-timeout = 9s
                restart-timeout { base = 1s, cap = 4s }, protocol-version = "5", client-id = remote-id, local-client-id = here
                username = u, password = p, clean-start = true, local-clean-start = true, keep-alive = 30s, max-inflight = 7
                try-private = false, notifications = false, notification-topic = "state/b"
                tls { ca-file = ca.pem, cert-file = c.pem, key-file = k.pem, insecure = true, alpn = mqtt }
                topics = [{ pattern = "x/#", direction = both, qos = 2, local-prefix = "l/", remote-prefix = "r/" }]""");
        assertEquals(List.of(new BridgeSettings.Address("::1", 1884)), bridge.addresses());
        assertEquals(BridgeSettings.StartType.LAZY, bridge.startType());
        assertEquals(3, bridge.threshold());
        assertEquals(Duration.ofSeconds(9), bridge.idleTimeout());
        assertEquals(Duration.ofSeconds(4), bridge.restartCap());
        assertEquals(ProtocolVersion.MQTT_5, bridge.protocolVersion());
        assertEquals("remote-id", bridge.clientId());
        assertEquals("here", bridge.localClientId());
        assertEquals(Optional.of("u"), bridge.username());
        assertEquals(Optional.of("p"), bridge.password());
        assertTrue(bridge.cleanStart() && bridge.localCleanStart() && bridge.roundRobin());
        assertEquals(30, bridge.keepAliveSeconds());
        assertEquals(7, bridge.maxInflight());
        assertEquals("state/b", bridge.notificationTopic());
        assertEquals(Optional.of(new BridgeSettings.Tls(Path.of("ca.pem"), Optional.of(Path.of("c.pem")), Optional.of(Path.of("k.pem")),
                true, Optional.of("mqtt"))), bridge.tls());
        assertEquals(new BridgeSettings.Topic("x/#", BridgeSettings.Direction.BOTH, QoS.EXACTLY_ONCE, "l/", "r/"), bridge.topics().get(0));
    }

    @Test
    void refusalsNameTheKey() {
        var topics = ", topics = [{ pattern = \"#\" }]";
        var address = ", addresses = [\"h:1\"]";
        assertTrue(refusal("addresses = [\"h:1\"]" + topics).contains("pekquitto.bridges.0.name is needed"));
        assertTrue(refusal("name = b" + topics).contains("pekquitto.bridges.0.addresses must name at least one"));
        assertTrue(refusal("name = b" + address).contains("pekquitto.bridges.0.topics must name at least one"));
        assertTrue(refusal("name = b, addresses = [\"h:x\"]" + topics).contains("pekquitto.bridges.0.addresses: \"h:x\""));
        assertTrue(refusal("name = b, addresses = [\"h:0\"]" + topics).contains("port must be 1..65535"));
        assertTrue(refusal("name = b, adresses = [\"h:1\"]" + topics).contains("pekquitto.bridges.0.adresses is not a known key"));
        assertTrue(refusal("name = b" + address + ", topics = [{ pattern = \"#\", qos = 3 }]").contains("pekquitto.bridges.0.topics.0.qos"));
        assertTrue(refusal("name = b" + address + ", topics = [{ pattern = \"#\", direction = up }]").contains("topics.0.direction"));
        assertTrue(refusal("name = b" + address + ", topics = [{ patern = \"#\" }]").contains("pekquitto.bridges.0.topics.0.patern is not a known key"));
        assertTrue(refusal("name = b" + address + ", topics = [{ pattern = \"#\", local-prefix = \"a/#/\" }]").contains("wildcard"));
        assertTrue(refusal("name = b" + address + ", topics = [{ local-prefix = \"a\" }]").contains("an empty pattern needs both"));
        assertTrue(refusal("name = b" + address + ", topics = [{ pattern = \"a/#/b\" }]").contains("is not a topic filter"));
        assertTrue(refusal("name = b" + address + topics + ", protocol-version = \"3.1\"").contains("protocol-version must be"));
        assertTrue(refusal("name = b" + address + topics + ", start-type = sometimes").contains("start-type must be"));
        assertTrue(refusal("name = b" + address + topics + ", keep-alive = 70000s").contains("pekquitto.bridges.0.keep-alive must be"));
        assertTrue(refusal("name = b" + address + topics + ", keep-alive = 60").contains("needs a unit"));
        assertTrue(refusal("name = b" + address + topics + ", restart-timeout { base = 10s, cap = 5s }").contains("restart-timeout.cap"));
        assertTrue(refusal("name = b" + address + topics + ", tls { cert-file = c.pem }").contains("tls.ca-file is needed"));
        assertTrue(refusal("name = b" + address + topics + ", tls { ca-file = a.pem, cert-file = c.pem }").contains("go together"));
    }

    @Test
    void namesAreUnique() {
        var message = assertThrows(ConfigurationException.class, () -> BrokerSettings.parse("""
                bridges = [{ name = b, addresses = ["h"], topics = [{ pattern = "#" }] },
                           { name = b, addresses = ["h"], topics = [{ pattern = "#" }] }]""")).getMessage();
        assertTrue(message.contains("pekquitto.bridges.1.name: another bridge is named \"b\""), message);
        var shared = assertThrows(ConfigurationException.class, () -> BrokerSettings.parse("""
                bridges = [{ name = a, client-id = same, addresses = ["h"], topics = [{ pattern = "#" }] },
                           { name = b, client-id = same, addresses = ["k"], topics = [{ pattern = "#" }] }]""")).getMessage();
        assertTrue(shared.contains("pekquitto.bridges.1.local-client-id: another bridge has \"local.same\""), shared);
    }
}
