package io.pekquitto.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.shards.settings.ConfigurationException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void helpPrintsUsageOnStdoutAndExitsZero() {
        assertEquals(0, run("-h"));
        assertTrue(out().startsWith("Usage: pekquitto [-c FILE] [-p PORT] [-v] [-h] [--version]"), out());
        assertEquals("", err());
    }

    @Test
    void versionPrintsTheVersionAndExitsZero() {
        assertEquals(0, run("--version"));
        // From classes there is no jar manifest; RunnableJarIT checks the jar's version.
        assertEquals("pekquitto dev" + System.lineSeparator(), out());
    }

    @Test
    void unknownOptionExitsOneWithMessageAndHint() {
        assertEquals(1, run("-d"));
        assertEquals("pekquitto: unknown option -d" + System.lineSeparator() + "Use -h to see usage." + System.lineSeparator(),
                err());
        assertEquals("", out());
    }

    @Test
    void missingOptionArgumentExitsOne() {
        assertEquals(1, run("-p"));
        assertTrue(err().startsWith("pekquitto: option -p needs an argument"), err());
    }

    @Test
    void badPortExitsOne() {
        assertEquals(1, run("-p", "99999"));
        assertTrue(err().startsWith("pekquitto: bad port 99999"), err());
    }

    @Test
    void missingConfigurationFileExitsOneNamingIt() {
        var missing = dir.resolve("broker.toml");

        assertEquals(1, run("-c", missing.toString()));
        assertTrue(err().startsWith("pekquitto: configuration file " + missing + " does not exist"), err());
    }

    @Test
    void configurationErrorExitsOneBeforeAnyBrokerStarts() throws IOException {
        var file = Files.writeString(dir.resolve("broker.toml"), "max-qos = 3\n");

        assertEquals(1, run("-p", "1884", "-c", file.toString()));
        assertTrue(err().startsWith("pekquitto: pekquitto.max-qos must be 0, 1 or 2, not 3 (" + file + ")"), err());
    }

    @Test
    void testConfigAcceptsTheReferenceConfiguration() {
        var reference = Path.of(System.getProperty("user.dir")).getParent().resolve("application.conf");
        assertTrue(Files.exists(reference), reference.toString());

        assertEquals(0, run("--test-config", "-c", reference.toString()));
        assertEquals("pekquitto: the configuration is valid (" + reference + ")" + System.lineSeparator(), out());
        assertEquals("", err());
    }

    @Test
    void testConfigRejectsABadKeyWithItsPath() throws IOException {
        var file = Files.writeString(dir.resolve("broker.conf"), "max-qoss = 1\n");

        assertEquals(1, run("--test-config", "-c", file.toString()));
        assertTrue(err().startsWith("pekquitto: ") && err().contains("pekquitto.max-qoss"), err());
        assertEquals("", out());
    }

    @Test
    void testConfigReadsTheFilesTheConfigurationNames() throws IOException {
        var missing = dir.resolve("passwords");
        var file = Files.writeString(dir.resolve("broker.conf"), "auth.password-file = \"" + missing + "\"\n");

        assertEquals(1, run("--test-config", "-c", file.toString()));
        assertTrue(err().startsWith("pekquitto: ") && err().contains(missing.toString()), err());
    }

    @Test
    void testConfigReadsABridgesTlsFiles() throws IOException {
        var missing = dir.resolve("remote-ca.pem");
        var file = Files.writeString(dir.resolve("broker.conf"), "bridges = [{ name = cloud, addresses = [\"h:8883\"], "
                + "tls { ca-file = \"" + missing + "\" }, topics = [{ pattern = \"#\" }] }]\n");

        assertEquals(1, run("--test-config", "-c", file.toString()));
        assertTrue(err().contains("bridge cloud: tls.ca-file " + missing + " cannot be read"), err());
    }

    @Test
    void anUnknownLogFormatIsRefusedBeforeAnyLogger() {
        Main.checkLogFormat(null);
        Main.checkLogFormat("text");
        Main.checkLogFormat("json");
        var refused = assertThrows(ConfigurationException.class, () -> Main.checkLogFormat("xml"));
        assertEquals("PEKQUITTO_LOG_FORMAT must be text or json, not xml", refused.getMessage());
    }

    @Test
    void nettysFlightRecorderEventsAreOffUnlessTheOperatorTurnsThemOn() {
        var before = System.getProperty(Main.NETTY_JFR);
        try {
            System.clearProperty(Main.NETTY_JFR);
            Main.withoutNettysFlightRecorderEvents();
            assertEquals("false", System.getProperty(Main.NETTY_JFR));

            System.setProperty(Main.NETTY_JFR, "true");
            Main.withoutNettysFlightRecorderEvents();
            assertEquals("true", System.getProperty(Main.NETTY_JFR));
        } finally {
            if (before == null) System.clearProperty(Main.NETTY_JFR);
            else System.setProperty(Main.NETTY_JFR, before);
        }
    }
}
