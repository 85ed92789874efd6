package io.pekquitto.ops.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mosquitto configurations as mosquitto.conf(5) and Mosquitto's own examples write them, converted: what pekquitto
 * has is carried over under its key, and every other line is named in a comment with the reason.
 */
class MosquittoConversionTest {
    @TempDir
    Path directory;

    private String convert(String... lines) throws IOException {
        return Converting.convert(directory, lines);
    }

    private static Config parsed(String converted) {
        return Converting.parsed(converted);
    }

    @Test
    void listenersWithTheirHostsProtocolsAndTls() throws IOException {
        var converted = convert(
                "listener 1883 localhost",
                "listener 8883",
                "cafile /etc/mosquitto/ca_certificates/ca.crt",
                "certfile /etc/mosquitto/certs/server.crt",
                "keyfile /etc/mosquitto/certs/server.key",
                "require_certificate true",
                "use_identity_as_username true",
                "max_connections 500",
                "listener 8080",
                "protocol websockets",
                "accept_protocol_versions 4, 5");
        var listeners = parsed(converted).getConfigList("listeners");
        assertEquals(3, listeners.size());
        assertEquals("localhost", listeners.get(0).getString("host"));
        assertEquals(1883, listeners.get(0).getInt("port"));
        assertFalse(listeners.get(1).hasPath("host"), "Mosquitto's listener without an address binds every interface");
        assertEquals("/etc/mosquitto/certs/server.crt", listeners.get(1).getString("tls.cert-file"));
        assertEquals("/etc/mosquitto/certs/server.key", listeners.get(1).getString("tls.key-file"));
        assertEquals("/etc/mosquitto/ca_certificates/ca.crt", listeners.get(1).getString("tls.ca-file"));
        assertTrue(listeners.get(1).getBoolean("tls.require-client-cert"));
        assertTrue(listeners.get(1).getBoolean("tls.cert-cn-as-username"));
        assertEquals(500, listeners.get(1).getInt("max-connections"));
        assertEquals("websocket", listeners.get(2).getString("protocol"));
        assertEquals(List.of("3.1.1", "5"), listeners.get(2).getStringList("protocol-versions"));
        assertTrue(converted.contains("path = \"/mqtt\""), "the WebSocket path's difference is said: " + converted);
    }

    @Test
    void perListenerSettingsAreNamedOnlyWhenTheyDifferFromPekquittos() throws IOException {
        assertFalse(convert("per_listener_settings false").contains("per_listener_settings"), "pekquitto's own way: nothing to say");
        assertTrue(convert("per_listener_settings true").contains("# mosquitto.conf:1: per_listener_settings true"));
    }

    @Test
    void aUnixSocketListenerIsLeftOutWithItsOptions() throws IOException {
        var converted = convert("listener 0 /run/mosquitto.sock", "protocol websockets", "listener 1883");
        var listeners = parsed(converted).getConfigList("listeners");
        assertEquals(1, listeners.size());
        assertFalse(listeners.get(0).hasPath("protocol"), "the socket's protocol line stays with it: " + converted);
    }

    @Test
    void withoutAListenerLineNoListenerIsConfiguredAsMosquittoListensOnLoopbackAlone() throws IOException {
        assertFalse(parsed(convert("allow_anonymous true")).hasPath("listeners"));
        var withPort = parsed(convert("port 1884")).getConfigList("listeners");
        assertEquals(1884, withPort.get(0).getInt("port"));
    }

    @Test
    void authPersistenceLimitsAndLogging() throws IOException {
        var config = parsed(convert(
                "allow_anonymous false",
                "password_file /etc/mosquitto/passwd",
                "acl_file /etc/mosquitto/acl",
                "persistence true",
                "persistence_location /var/lib/mosquitto/",
                "max_inflight_messages 0",
                "max_queued_messages 200",
                "max_packet_size 65536",
                "max_keepalive 120",
                "sys_interval 30",
                "retain_available false",
                "max_qos 1",
                "queue_qos0_messages true",
                "persistent_client_expiration 2w",
                "connection_messages false",
                "log_type all"));
        assertFalse(config.getBoolean("auth.allow-anonymous"));
        assertEquals("/etc/mosquitto/passwd", config.getString("auth.password-file"));
        assertEquals("/etc/mosquitto/acl", config.getString("auth.acl-file"));
        assertTrue(config.getBoolean("store.enabled"));
        assertEquals("/var/lib/mosquitto/pekquitto", config.getString("store.path"), "a directory of its own beside mosquitto.db");
        assertEquals(65_535, config.getInt("max-inflight-messages"), "Mosquitto's 0 is no limit");
        assertEquals(200, config.getInt("max-queued-messages"));
        assertEquals(65_536, config.getInt("max-packet-size"));
        assertEquals(120, config.getInt("max-keep-alive"));
        assertEquals(30, config.getDuration("sys-interval").toSeconds());
        assertFalse(config.getBoolean("retain-available"));
        assertEquals(1, config.getInt("max-qos"));
        assertTrue(config.getBoolean("queue-qos0-messages"));
        assertEquals(14 * 86_400, config.getDuration("max-session-expiry").toSeconds());
        assertFalse(config.getBoolean("log.connection-messages"));
        assertEquals("DEBUG", config.getString("log.level"));
    }

    @Test
    void everyLineNotCarriedOverIsNamedWithItsReason() throws IOException {
        var converted = convert(
                "pid_file /run/mosquitto/mosquitto.pid",
                "log_dest file /var/log/mosquitto/mosquitto.log",
                "frobnicate yes");
        for (var line : List.of("mosquitto.conf:1: pid_file", "mosquitto.conf:2: log_dest file", "mosquitto.conf:3: frobnicate yes")) {
            assertTrue(converted.contains("# " + line), () -> line + " not named in:\n" + converted);
        }
        assertTrue(parsed(converted).isEmpty(), "nothing carried over: " + converted);
    }

    @Test
    void theAclFilesDifferenceIsSaid() throws IOException {
        var converted = convert("acl_file /etc/mosquitto/acl");
        assertTrue(converted.contains("# mosquitto.conf:1: acl_file /etc/mosquitto/acl\n#   pekquitto judges a subscription"), converted);
    }

    @Test
    void includeDirReadsItsConfFilesInOrder() throws IOException {
        var conf = Files.createDirectory(directory.resolve("conf.d"));
        Files.writeString(conf.resolve("b.conf"), "max_qos 1\n");
        Files.writeString(conf.resolve("a.conf"), "listener 1885\nmax_qos 0\n");
        Files.writeString(conf.resolve("notes.txt"), "max_qos 2\n");
        var config = parsed(convert("include_dir " + conf));
        assertEquals(1885, config.getConfigList("listeners").get(0).getInt("port"));
        assertEquals(1, config.getInt("max-qos"), "b.conf after a.conf, and no file but .conf");
    }

    @Test
    void aPathWithSpacesAndQuotesStaysOneValue() throws IOException {
        var config = parsed(convert("password_file /srv/my \"odd\" dir/passwd"));
        assertEquals("/srv/my \"odd\" dir/passwd", config.getString("auth.password-file"));
    }

    @Test
    void theCommandPrintsTheConversionOrSaysWhatItCannotRead() throws IOException {
        var file = Files.writeString(directory.resolve("m.conf"), "listener 1883\n");
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        assertEquals(0, ConvertCommand.run(List.of(file.toString()), print(out), print(err)));
        assertEquals(1883, parsed(out.toString(StandardCharsets.UTF_8)).getConfigList("listeners").get(0).getInt("port"));
        assertEquals(1, ConvertCommand.run(List.of(directory.resolve("missing.conf").toString()), print(out), print(err)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("missing.conf"), err.toString(StandardCharsets.UTF_8));
        assertEquals(2, ConvertCommand.run(List.of(), print(out), print(err)));
    }

    @Test
    void anIncludeDirThatIncludesItselfIsRefused() throws IOException {
        var conf = Files.createDirectory(directory.resolve("loop.d"));
        Files.writeString(conf.resolve("self.conf"), "include_dir " + conf + "\n");
        var e = assertThrows(IOException.class, () -> convert("include_dir " + conf));
        assertTrue(e.getMessage().contains("nested"), e.getMessage());
    }

    private static PrintStream print(ByteArrayOutputStream to) {
        return new PrintStream(to, true, StandardCharsets.UTF_8);
    }
}
