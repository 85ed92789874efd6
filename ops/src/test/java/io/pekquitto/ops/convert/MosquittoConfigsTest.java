package io.pekquitto.ops.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bridges of Mosquitto's own configurations (resources mosquitto-configs/, README there), converted: pekquitto
 * has no bridge reader on this branch yet, so the HOCON itself is what is checked here.
 */
class MosquittoConfigsTest {
    private static String convert(String name) throws IOException, URISyntaxException {
        var file = Path.of(MosquittoConfigsTest.class.getResource("/mosquitto-configs/" + name).toURI());
        return MosquittoConversion.convert(file, MosquittoConf.read(file));
    }

    private static Config onlyBridge(String converted) {
        var bridges = ConfigFactory.parseString(converted).getConfigList("bridges");
        assertEquals(1, bridges.size(), converted);
        return bridges.get(0);
    }

    /** A bridge's topics as Mosquitto's topic lines would write them: pattern direction qos local-prefix remote-prefix. */
    private static List<String> topics(Config bridge) {
        return bridge.getConfigList("topics").stream().map(topic -> String.join(" ", topic.getString("pattern"),
                topic.getString("direction"), topic.getString("qos"), topic.getString("local-prefix"), topic.getString("remote-prefix"))).toList();
    }

    @Test
    void theManPagesExampleBridge() throws Exception {
        var bridge = onlyBridge(convert("bridge-test-mosquitto-org.conf"));
        assertEquals("test-mosquitto-org", bridge.getString("name"));
        assertEquals(List.of("test.mosquitto.org"), bridge.getStringList("addresses"));
        assertTrue(bridge.getBoolean("clean-start"));
        assertTrue(bridge.getBoolean("local-clean-start"), "Mosquitto's local_cleansession follows cleansession");
        assertEquals(List.of("clients/total in 0 test/mosquitto/org/ $SYS/broker/"), topics(bridge));
    }

    @Test
    void theRemappingOfIncomingTopics() throws Exception {
        var converted = convert("06-bridge-b2br-remapping.conf");
        var bridge = onlyBridge(converted);
        assertEquals(List.of("127.0.0.1:1888"), bridge.getStringList("addresses"));
        assertEquals(List.of("# in 0 local/topic/ remote/topic/", "prefix/# in 0 local2/topic/ remote2/topic/",
                "+/value in 0 local3/topic/ remote3/topic/", "ic/+ in 0 local4/top remote4/tip",
                "clients/total in 0 test/mosquitto/org $SYS/broker/"), topics(bridge));
        assertFalse(bridge.getBoolean("notifications"));
        assertEquals(5, bridge.getDuration("restart-timeout.base").toSeconds());
        assertEquals(5, bridge.getDuration("restart-timeout.cap").toSeconds(), "one value: a constant wait");
        assertEquals("5", bridge.getString("protocol-version"));
        assertFalse(converted.contains("bridge_attempt_unsubscribe"), "pekquitto's bridges never unsubscribe, as false asks");
        assertEquals(1889, ConfigFactory.parseString(converted).getConfigList("listeners").get(0).getInt("port"));
    }

    @Test
    void theRemappingOfOutgoingTopics() throws Exception {
        var bridge = onlyBridge(convert("06-bridge-br2b-remapping.conf"));
        assertEquals(List.of("# out 0 local/topic/ remote/topic/", "prefix/# out 0 local2/topic/ remote2/topic/",
                "+/value out 0 local3/topic/ remote3/topic/", "ic/+ out 0 local4/top remote4/tip"), topics(bridge));
        assertEquals("3.1.1", bridge.getString("protocol-version"));
    }

    @Test
    void aBridgeOverTls() throws Exception {
        var bridge = onlyBridge(convert("08-ssl-bridge.conf"));
        assertEquals(List.of("bridge/# both 0  "), topics(bridge));
        assertEquals("../ssl/all-ca.crt", bridge.getString("tls.ca-file"));
        assertTrue(bridge.getBoolean("tls.insecure"));
        assertEquals(2, bridge.getDuration("restart-timeout.base").toSeconds());
    }
}
