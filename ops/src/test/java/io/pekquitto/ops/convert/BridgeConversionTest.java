package io.pekquitto.ops.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mosquitto's bridge sections (mosquitto.conf(5), "Configuring Bridges") converted: each option pekquitto's bridges
 * have lands under its key of {@code bridges} (application.conf, {@code bridge-defaults}), and every other one, or
 * a value Mosquitto itself would refuse, is named in a comment with the reason.
 */
class BridgeConversionTest {
    @TempDir
    Path directory;

    private String convert(String... lines) throws IOException {
        return Converting.convert(directory, lines);
    }

    private static Config parsed(String converted) {
        return Converting.parsed(converted);
    }

    /** The one bridge of {@code lines}, after {@code connection cloud} and an address. */
    private Config bridge(String... lines) throws IOException {
        var all = new ArrayList<>(List.of("connection cloud", "address broker.example.com:8883"));
        all.addAll(List.of(lines));
        var converted = convert(all.toArray(String[]::new));
        var bridges = parsed(converted).getConfigList("bridges");
        assertEquals(1, bridges.size(), converted);
        return bridges.get(0);
    }

    /** Asserts that {@code line}, the third of a bridge's section, is named in a comment saying {@code why}. */
    private void assertNoted(String line, String why) throws IOException {
        var converted = convert("connection cloud", "address broker.example.com", line);
        assertTrue(converted.contains("# mosquitto.conf:3: " + line + "\n#   "), () -> line + " not named in:\n" + converted);
        assertTrue(converted.contains(why), () -> "'" + why + "' not said in:\n" + converted);
    }

    @Test
    void aBridgeWithItsNameAddressesAndConnection() throws IOException {
        var bridge = bridge("round_robin true", "start_type lazy", "threshold 25", "idle_timeout 120",
                "bridge_protocol_version mqttv50", "remote_clientid site1", "local_clientid site1.local",
                "remote_username bridge", "remote_password s3cret", "cleansession true", "local_cleansession false",
                "keepalive_interval 30", "try_private false", "notifications false", "notification_topic bridges/cloud/up");
        assertEquals("cloud", bridge.getString("name"));
        assertEquals(List.of("broker.example.com:8883"), bridge.getStringList("addresses"));
        assertTrue(bridge.getBoolean("round-robin"));
        assertEquals("lazy", bridge.getString("start-type"));
        assertEquals(25, bridge.getInt("threshold"));
        assertEquals(120, bridge.getDuration("idle-timeout").toSeconds());
        assertEquals("5", bridge.getString("protocol-version"));
        assertEquals("site1", bridge.getString("client-id"));
        assertEquals("site1.local", bridge.getString("local-client-id"));
        assertEquals("bridge", bridge.getString("username"));
        assertEquals("s3cret", bridge.getString("password"));
        assertTrue(bridge.getBoolean("clean-start"));
        assertFalse(bridge.getBoolean("local-clean-start"));
        assertEquals(30, bridge.getDuration("keep-alive").toSeconds());
        assertFalse(bridge.getBoolean("try-private"));
        assertFalse(bridge.getBoolean("notifications"));
        assertEquals("bridges/cloud/up", bridge.getString("notification-topic"));
        assertEquals(List.of(), bridge.getConfigList("topics"));
    }

    @Test
    void severalAddressesOnOneLineOrOnSeveralAndACommentAfterThem() throws IOException {
        var converted = convert("connection cloud", "addresses a.example.com b.example.com:1884 # the spare", "address [::1]:1885");
        assertEquals(List.of("a.example.com", "b.example.com:1884", "[::1]:1885"),
                parsed(converted).getConfigList("bridges").get(0).getStringList("addresses"));
    }

    @Test
    void theDeprecatedNamesOfTheRemoteClientIdUserAndPassword() throws IOException {
        var bridge = bridge("clientid old-style", "username user", "password pass");
        assertEquals("old-style", bridge.getString("client-id"));
        assertEquals("user", bridge.getString("username"));
        assertEquals("pass", bridge.getString("password"));
    }

    @Test
    void aCleanRemoteSessionMakesTheLocalOneCleanUnlessLocalCleansessionSaysOtherwise() throws IOException {
        assertTrue(bridge("cleansession true").getBoolean("local-clean-start"), "Mosquitto's local_cleansession defaults to cleansession");
        assertFalse(bridge("cleansession false").getBoolean("local-clean-start"));
        assertFalse(bridge("local_cleansession false", "cleansession true").getBoolean("local-clean-start"));
        assertFalse(bridge().hasPath("local-clean-start"), "pekquitto's default is Mosquitto's");
    }

    @Test
    void restartTimeoutOfOneValueIsConstantAndOfTwoABackOff() throws IOException {
        var constant = bridge("restart_timeout 20").getConfig("restart-timeout");
        assertEquals(Map.of("base", 20L, "cap", 20L), Map.of("base", constant.getDuration("base").toSeconds(),
                "cap", constant.getDuration("cap").toSeconds()));
        var backOff = bridge("restart_timeout 10 60").getConfig("restart-timeout");
        assertEquals(10, backOff.getDuration("base").toSeconds());
        assertEquals(60, backOff.getDuration("cap").toSeconds());
        assertEquals(1, bridge("restart_timeout 0").getDuration("restart-timeout.base").toSeconds(), "Mosquitto's least is 1 second");
        assertNoted("restart_timeout 30 10", "the cap is below the base");
    }

    @Test
    void keepAliveUnderFiveSecondsIsFiveAsInMosquittoAndOver65535IsRefused() throws IOException {
        assertEquals(5, bridge("keepalive_interval 2").getDuration("keep-alive").toSeconds());
        assertNoted("keepalive_interval 70000", "at most 65535 seconds");
        assertNoted("keepalive_interval soon", "soon is not a whole number");
    }

    @Test
    void protocolVersions() throws IOException {
        assertEquals("3.1.1", bridge("bridge_protocol_version mqttv311").getString("protocol-version"));
        assertNoted("bridge_protocol_version mqttv31", "not 3.1");
        assertFalse(bridge("bridge_protocol_version mqttv31").hasPath("protocol-version"));
        assertNoted("bridge_protocol_version mqttv6", "not mqttv31, mqttv311 or mqttv50");
    }

    @Test
    void startTypesAndBooleans() throws IOException {
        assertEquals("once", bridge("start_type once").getString("start-type"));
        assertEquals("automatic", bridge("start_type automatic").getString("start-type"));
        assertNoted("start_type manual", "automatic, lazy or once");
        assertNoted("try_private maybe", "expected true or false");
    }

    @Test
    void tlsToTheRemote() throws IOException {
        var tls = bridge("bridge_cafile /etc/mosquitto/ca.crt", "bridge_certfile /etc/mosquitto/bridge.crt",
                "bridge_keyfile /etc/mosquitto/bridge.key", "bridge_insecure true", "bridge_alpn x-amzn-mqtt-ca").getConfig("tls");
        assertEquals("/etc/mosquitto/ca.crt", tls.getString("ca-file"));
        assertEquals("/etc/mosquitto/bridge.crt", tls.getString("cert-file"));
        assertEquals("/etc/mosquitto/bridge.key", tls.getString("key-file"));
        assertTrue(tls.getBoolean("insecure"));
        assertEquals("x-amzn-mqtt-ca", tls.getString("alpn"));
    }

    @Test
    void optionsPekquittosBridgesDoWithoutAreNamedWithTheReason() throws IOException {
        assertNoted("bridge_capath /etc/ssl/certs", "one file (tls.ca-file)");
        assertNoted("bridge_psk 0102", "no TLS-PSK");
        assertNoted("bridge_identity me", "no TLS-PSK");
        assertNoted("bridge_tls_version tlsv1.1", "TLS 1.3 and 1.2");
        assertNoted("bridge_require_ocsp true", "OCSP");
        assertNoted("bridge_attempt_unsubscribe true", "never unsubscribe at the remote");
        assertNoted("bridge_bind_address 192.168.1.10", "the system picks");
        assertNoted("bridge_max_packet_size 1000", "no bound of their own");
        assertNoted("bridge_outgoing_retain false", "retain flags as published");
        assertNoted("local_username me", "no ACL limits what they carry");
        assertNoted("local_password pw", "do not log in here");
        assertNoted("bridge_reload_type immediate", "only with a restart");
        assertNoted("notifications_local_only false", "the remote is not notified");
        // pekquitto's own way: nothing to say.
        for (var line : List.of("notifications_local_only true", "bridge_attempt_unsubscribe false", "bridge_outgoing_retain true")) {
            var converted = convert("connection cloud", "address a", line);
            assertFalse(converted.contains(line), () -> line + " noted in:\n" + converted);
        }
    }

    @Test
    void theBrokersMaxInflightMessagesBoundsItsBridgesToo() throws IOException {
        var config = parsed(convert("connection cloud", "address a", "max_inflight_messages 5"));
        assertEquals(5, config.getInt("max-inflight-messages"));
        assertEquals(5, config.getConfigList("bridges").get(0).getInt("max-inflight"), "Mosquitto's bridges take the broker's bound");
    }

    @Test
    void aBridgeWithoutAnAddressOrAnOptionBeforeAnyConnectionIsLeftOut() throws IOException {
        var converted = convert("try_private false", "connection lost", "topic # out", "listener 1883");
        assertFalse(parsed(converted).hasPath("bridges"), converted);
        assertTrue(converted.contains("# mosquitto.conf:1: try_private false\n#   a bridge's option before any connection line"), converted);
        assertTrue(converted.contains("# mosquitto.conf:2: connection lost\n#   bridge lost has no address"), converted);
        assertEquals(1883, parsed(converted).getConfigList("listeners").get(0).getInt("port"), "the rest is carried over");
    }

    @Test
    void linesThatAreNotABridgesStayTheBrokersOrAreNamed() throws IOException {
        var converted = convert("connection cloud", "address a", "max_qos 1", "frobnicate yes");
        assertEquals(1, parsed(converted).getInt("max-qos"), "Mosquitto's global options stay global after a connection line");
        assertTrue(converted.contains("# mosquitto.conf:4: frobnicate yes"), converted);
    }

    @Test
    void twoBridgesEachWithTheirOwnOptions() throws IOException {
        var bridges = parsed(convert("connection one", "address a", "start_type once", "connection two", "address b"))
                .getConfigList("bridges");
        assertEquals(List.of("one", "two"), bridges.stream().map(b -> b.getString("name")).toList());
        assertEquals("once", bridges.get(0).getString("start-type"));
        assertFalse(bridges.get(1).hasPath("start-type"));
    }
}
