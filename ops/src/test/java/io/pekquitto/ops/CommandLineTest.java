package io.pekquitto.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pekquitto.shards.settings.ConfigurationException;
import io.pekquitto.shards.settings.ListenerSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandLineTest {

    @TempDir
    Path dir;

    private static String error(String... args) {
        return assertThrows(ConfigurationException.class, () -> CommandLine.parse(args)).getMessage();
    }

    @Test
    void noArgumentsListenOn1883WithTheDefaults() {
        var commandLine = CommandLine.parse();

        assertEquals(new CommandLine(Optional.empty(), OptionalInt.empty(), false, false, false, false), commandLine);
        assertEquals(List.of(new ListenerSettings("127.0.0.1", 1883)), commandLine.settings(new Properties()).listeners(),
                "loopback only, as Mosquitto 2.0 without a listener");
    }

    @Test
    void shortAndLongOptionsAreMosquittos() {
        var expected = new CommandLine(Optional.of(Path.of("broker.toml")), OptionalInt.of(1884), true, true, true, true);

        assertEquals(expected, CommandLine.parse("-c", "broker.toml", "-p", "1884", "-v", "-h", "--version", "--test-config"));
        assertEquals(expected, CommandLine.parse("--config-file", "broker.toml", "--port", "1884", "--verbose", "--help",
                "--version", "--test-config"));
    }

    @Test
    void portOverridesTheFirstListenerOnly() throws IOException {
        var file = Files.writeString(dir.resolve("broker.conf"), """
                listeners = [ { host = "127.0.0.1", port = 1883 }, { port = 8883 } ]
                max-qos = 1
                """);

        var settings = CommandLine.parse("-p", "1999", "-c", file.toString()).settings(new Properties());

        assertEquals(List.of(new ListenerSettings("127.0.0.1", 1999), new ListenerSettings("0.0.0.0", 8883)),
                settings.listeners());
        assertEquals(1, settings.maxQos());
    }

    @Test
    void portZeroPicksAFreePort() {
        var settings = CommandLine.parse("-p", "0").settings(new Properties());

        assertEquals(List.of(new ListenerSettings("127.0.0.1", 0)), settings.listeners());
    }

    @Test
    void portOutOfRangeOrNotANumberIsRefused() {
        assertEquals("bad port 65536: expected 0-65535", error("-p", "65536"));
        assertEquals("bad port -1: expected 0-65535", error("-p", "-1"));
        assertEquals("bad port http: expected 0-65535", error("-p", "http"));
    }

    @Test
    void missingOptionArgumentIsNamed() {
        assertEquals("option -c needs an argument", error("-c"));
        assertEquals("option --port needs an argument", error("-v", "--port"));
    }

    @Test
    void unknownOptionOrArgumentIsNamed() {
        assertEquals("unknown option -d", error("-d"));
        assertEquals("unexpected argument broker.conf", error("broker.conf"));
    }
}
