package io.pekquitto.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.shards.settings.BrokerSettings;
import io.pekquitto.shards.settings.ListenerSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SettingsReaderTest {

    @TempDir
    Path dir;

    private Path write(String name, String content) {
        try {
            return Files.writeString(dir.resolve(name), content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static BrokerSettings read(Path file) {
        return SettingsReader.read(ConfigLoader.load(Optional.of(file), new Properties()));
    }

    private static String error(Path file) {
        return assertThrows(ConfigurationException.class, () -> read(file)).getMessage();
    }

    @Test
    void shardsAutoIsTheNumberOfProcessors() {
        var processors = Runtime.getRuntime().availableProcessors();

        assertEquals(processors, read(write("broker.conf", "shards = auto")).shards());
        assertEquals(processors, read(write("broker.toml", "shards = \"auto\"")).shards());
    }

    @Test
    void shardsNeitherANumberNorAutoIsRefused() {
        var file = write("broker.toml", "shards = \"many\"");

        assertEquals("pekquitto.shards must be a number of at least 1 or auto, not \"many\" (" + file + ")", error(file));
    }

    @Test
    void unknownKeyInATomlFileNamesTheKeyAndTheFile() {
        var file = write("broker.toml", "shards = 1\nshardz = 2\n");

        assertEquals("pekquitto.shardz is not a known key (" + file + "); did you mean pekquitto.shards?", error(file));
    }

    @Test
    void mosquittoSpellingGetsTheKnownKeySuggested() {
        var file = write("broker.conf", "max_inflight_messages = 10");

        var message = error(file);

        assertTrue(message.startsWith("pekquitto.max_inflight_messages is not a known key (" + file + ": 1)"), message);
        assertTrue(message.endsWith("did you mean pekquitto.max-inflight-messages?"), message);
    }

    @Test
    void farFetchedUnknownKeyGetsNoSuggestion() {
        var file = write("broker.toml", "persistence = true");

        assertEquals("pekquitto.persistence is not a known key (" + file + ")", error(file));
    }

    @Test
    void unknownListenerKeyIsNamedWithItsIndex() {
        var file = write("broker.toml", "[[listeners]]\nport = 1883\n\n[[listeners]]\nprot = 1884\n");

        assertEquals("pekquitto.listeners.1.prot is not a known key (" + file + "); did you mean pekquitto.listeners.1.port?",
                error(file));
    }

    @Test
    void keysWrappedInThePekquittoRootGetAHint() {
        var file = write("broker.conf", "pekquitto { max-qos = 1 }");

        var message = error(file);

        assertTrue(message.startsWith("pekquitto.pekquitto is not a known key"), message);
        assertTrue(message.contains("without the pekquitto { } root"), message);
    }

    @Test
    void wrongTypeNamesThePathAndTheFile() {
        var file = write("broker.toml", "max-qos = \"two\"");

        var message = error(file);

        assertTrue(message.startsWith(file.toString()), message);
        assertTrue(message.contains("pekquitto.max-qos"), message);
    }

    @Test
    void maxQosThreeNamesTheKeyAndTheFile() {
        var file = write("broker.toml", "max-qos = 3");

        assertEquals("pekquitto.max-qos must be 0, 1 or 2, not 3 (" + file + ")", error(file));
    }

    @ParameterizedTest
    @CsvSource({
        "shards, 0",
        "max-packet-size, 1",
        "max-packet-size, 268435461",
        "max-keep-alive, 65536",
        "receive-maximum, 0",
        "max-inflight-messages, 65536",
        "max-queued-messages, -1",
        "max-qos, -1",
        "topic-alias-maximum, 65536"})
    void valueOutOfRangeNamesItsKeyAndLine(String key, String value) {
        var file = write("broker.conf", "\n" + key + " = " + value);

        var message = error(file);

        assertTrue(message.startsWith("pekquitto." + key + " must be "), message);
        assertTrue(message.endsWith("(" + file + ": 2)"), message);
    }

    @Test
    void durationsTakeHoconUnits() {
        var settings = read(write("broker.conf", "max-session-expiry = 7d\nconnect-timeout = 1500ms"));

        assertEquals(Duration.ofDays(7), settings.maxSessionExpiry());
        assertEquals(Duration.ofMillis(1500), settings.connectTimeout());
    }

    @Test
    void durationWithoutAUnitIsRefused() {
        var file = write("broker.toml", "connect-timeout = 10");

        assertEquals("pekquitto.connect-timeout needs a unit, e.g. 10s for seconds (" + file + ")", error(file));
    }

    @Test
    void sessionExpiryBeyondTheProtocolIsRefused() {
        var file = write("broker.conf", "max-session-expiry = 4294967296s");

        assertTrue(error(file).startsWith("pekquitto.max-session-expiry must be 0s..4294967295s"), error(file));
    }

    @Test
    void zeroConnectTimeoutIsRefused() {
        var file = write("broker.conf", "connect-timeout = 0s");

        assertTrue(error(file).startsWith("pekquitto.connect-timeout must be longer than 0s"), error(file));
    }

    @Test
    void listenerGivesOnlyWhatDiffersFromTheDefault() {
        var settings = read(write("broker.toml", "[[listeners]]\nport = 8883\n"));

        assertEquals(List.of(new ListenerSettings("0.0.0.0", 8883)), settings.listeners());
    }

    @Test
    void listenerPortOutOfRangeNamesTheListener() {
        var file = write("broker.conf", "listeners = [ { port = 70000 } ]");

        assertTrue(error(file).startsWith("pekquitto.listeners.0.port: "), error(file));
        assertTrue(error(file).endsWith("(" + file + ": 1)"), error(file));
    }

    @Test
    void noListenerIsRefused() {
        var file = write("broker.conf", "listeners = []");

        assertEquals("pekquitto.listeners needs at least one listener (" + file + ": 1)", error(file));
    }
}
