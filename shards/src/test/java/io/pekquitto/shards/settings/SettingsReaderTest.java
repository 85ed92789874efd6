package io.pekquitto.shards.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigValueFactory;
import io.pekquitto.protocol.ProtocolVersion;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The reader's checks and messages. A configuration comes in as ops reads a {@code -c} file: a HOCON
 * file parsed by Typesafe (its origin names the file and line), or a TOML file, which ops turns into
 * plain maps and lists with the file as the origin and no line.
 */
class SettingsReaderTest {
    private static final String HOCON_FILE = "broker.conf";
    private static final String TOML_FILE = "broker.toml";

    /** A HOCON file named {@value #HOCON_FILE} holding {@code text}, layered over the defaults. */
    private static Config hocon(String text) {
        var options = ConfigParseOptions.defaults().setOriginDescription(HOCON_FILE);
        return layered(ConfigFactory.parseString(text, options));
    }

    /** A TOML file named {@value #TOML_FILE}, as ops's TOML reader gives it, layered over the defaults. */
    private static Config toml(Map<String, Object> keys) {
        return layered(ConfigValueFactory.fromMap(keys, TOML_FILE).toConfig());
    }

    private static Config layered(Config file) {
        return file.atKey(SettingsReader.ROOT).withFallback(SettingsReader.defaults());
    }

    private static String error(Config config) {
        return assertThrows(ConfigurationException.class, () -> SettingsReader.read(config)).getMessage();
    }

    @Test
    void shardsAutoIsOnePerTwoProcessors() {
        var expected = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);

        assertEquals(expected, SettingsReader.read(hocon("shards = auto")).shards());
        assertEquals(expected, SettingsReader.read(toml(Map.of("shards", "auto"))).shards());
        assertEquals(1, SettingsReader.autoShards(1));
        assertEquals(1, SettingsReader.autoShards(2), "measured: one shard beats two on 2 cores");
        assertEquals(1, SettingsReader.autoShards(3));
        assertEquals(4, SettingsReader.autoShards(8));
    }

    @Test
    void shardsNeitherANumberNorAutoIsRefused() {
        assertEquals("pekquitto.shards must be a number of at least 1 or auto, not \"many\" (" + TOML_FILE + ")",
                error(toml(Map.of("shards", "many"))));
    }

    @Test
    void unknownKeyInATomlFileNamesTheKeyAndTheFile() {
        var config = toml(Map.of("shards", 1L, "shardz", 2L));

        assertEquals("pekquitto.shardz is not a known key (" + TOML_FILE + "); did you mean pekquitto.shards?", error(config));
    }

    @Test
    void mosquittoSpellingGetsTheKnownKeySuggested() {
        var message = error(hocon("max_inflight_messages = 10"));

        assertTrue(message.startsWith("pekquitto.max_inflight_messages is not a known key (" + HOCON_FILE + ": 1)"), message);
        assertTrue(message.endsWith("did you mean pekquitto.max-inflight-messages?"), message);
    }

    @Test
    void farFetchedUnknownKeyGetsNoSuggestion() {
        assertEquals("pekquitto.persistence is not a known key (" + TOML_FILE + ")", error(toml(Map.of("persistence", true))));
    }

    @Test
    void unknownListenerKeyIsNamedWithItsIndex() {
        var config = toml(Map.of("listeners", List.of(Map.of("port", 1883L), Map.of("prot", 1884L))));

        assertEquals("pekquitto.listeners.1.prot is not a known key (" + TOML_FILE + "); did you mean pekquitto.listeners.1.port?",
                error(config));
    }

    @Test
    void keysWrappedInThePekquittoRootGetAHint() {
        var message = error(hocon("pekquitto { max-qos = 1 }"));

        assertTrue(message.startsWith("pekquitto.pekquitto is not a known key"), message);
        assertTrue(message.contains("without the pekquitto { } root"), message);
    }

    @Test
    void wrongTypeNamesThePathAndTheFile() {
        var message = error(toml(Map.of("max-qos", "two")));

        assertTrue(message.startsWith(TOML_FILE), message);
        assertTrue(message.contains("pekquitto.max-qos"), message);
    }

    @Test
    void maxQosThreeNamesTheKeyAndTheFile() {
        assertEquals("pekquitto.max-qos must be 0, 1 or 2, not 3 (" + TOML_FILE + ")", error(toml(Map.of("max-qos", 3L))));
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
        "topic-alias-maximum, 65536",
        "memory.budget, lots",
        "memory.budget, -1",
        "max-queued-bytes, -1",
        "memory.over-share-grace, 0s"})
    void valueOutOfRangeNamesItsKeyAndLine(String key, String value) {
        var message = error(hocon("\n" + key + " = " + value));

        assertTrue(message.startsWith("pekquitto." + key + " must be "), message);
        assertTrue(message.endsWith("(" + HOCON_FILE + ": 2)"), message);
    }

    @Test
    void durationsTakeHoconUnits() {
        var settings = SettingsReader.read(hocon("max-session-expiry = 7d\nconnect-timeout = 1500ms"));

        assertEquals(Duration.ofDays(7), settings.maxSessionExpiry());
        assertEquals(Duration.ofMillis(1500), settings.connectTimeout());
    }

    @Test
    void durationWithoutAUnitIsRefused() {
        assertEquals("pekquitto.connect-timeout needs a unit, e.g. 10s for seconds (" + TOML_FILE + ")",
                error(toml(Map.of("connect-timeout", 10L))));
    }

    @Test
    void sessionExpiryBeyondTheProtocolIsRefused() {
        var message = error(hocon("max-session-expiry = 4294967296s"));

        assertTrue(message.startsWith("pekquitto.max-session-expiry must be 0s..4294967295s"), message);
    }

    @Test
    void maxConnectSizeIsASizeOfAtLeastTwoBytes() {
        assertEquals(4096, SettingsReader.read(hocon("max-connect-size = 4KiB")).maxConnectSize());
        var message = error(hocon("max-connect-size = 1"));

        assertTrue(message.startsWith("pekquitto.max-connect-size must be 2.."), message);
    }

    @Test
    void zeroConnectTimeoutIsRefused() {
        var message = error(hocon("connect-timeout = 0s"));

        assertTrue(message.startsWith("pekquitto.connect-timeout must be longer than 0s"), message);
    }

    @Test
    void operationsSettingsAreReadAndCheckedWithTheirPaths() {
        var settings = SettingsReader.read(hocon("sys-interval = 0s\nshutdown-timeout = 3s\nmetrics { enabled = true, port = 0 }"));
        assertFalse(settings.operations().publishesSys());
        assertEquals(Duration.ofSeconds(3), settings.operations().shutdownTimeout());
        assertEquals(new OperationsSettings.MetricsSettings(true, "127.0.0.1", 0), settings.operations().metrics());

        assertTrue(error(hocon("shutdown-timeout = 0s")).startsWith("pekquitto.shutdown-timeout must be longer than 0s"));
        assertTrue(error(hocon("sys-interval = 10")).startsWith("pekquitto.sys-interval needs a unit"));
        var port = error(hocon("metrics.port = 70000"));
        assertTrue(port.contains("metrics.port must be 0..65535, not 70000"), port);
    }

    @Test
    void listenerGivesOnlyWhatDiffersFromTheDefault() {
        var settings = SettingsReader.read(toml(Map.of("listeners", List.of(Map.of("port", 8883L)))));

        assertEquals(List.of(new ListenerSettings("0.0.0.0", 8883)), settings.listeners());
    }

    @Test
    void listenerPortOutOfRangeNamesTheListener() {
        var message = error(hocon("listeners = [ { port = 70000 } ]"));

        assertTrue(message.startsWith("pekquitto.listeners.0.port: "), message);
        assertTrue(message.endsWith("(" + HOCON_FILE + ": 1)"), message);
    }

    @Test
    void listenerProtocolLimitsAndVersionsAreRead() {
        var settings = SettingsReader.read(hocon("listeners = [ { port = 8080, protocol = websocket, status-page = false },\n"
                + " { port = 1884, proxy-protocol = true, max-connections = 100, protocol-versions = [\"3.1.1\", \"5\"] } ]"));

        var websocket = settings.listeners().get(0);
        assertEquals(Optional.of(new WebSocketSettings("/mqtt", false)), websocket.websocket());
        assertFalse(websocket.proxyProtocol());
        assertEquals(ListenerSettings.UNLIMITED, websocket.maxConnections());
        assertEquals(EnumSet.allOf(ProtocolVersion.class), websocket.protocolVersions());
        var mqtt = settings.listeners().get(1);
        assertEquals(Optional.empty(), mqtt.websocket());
        assertTrue(mqtt.proxyProtocol());
        assertFalse(mqtt.full(99));
        assertTrue(mqtt.full(100));
        assertEquals(EnumSet.of(ProtocolVersion.MQTT_3_1_1, ProtocolVersion.MQTT_5), mqtt.protocolVersions());
    }

    @Test
    void badListenerProtocolLimitOrVersionNamesItsPath() {
        var protocol = error(hocon("listeners = [ { protocol = websockets } ]"));
        assertTrue(protocol.startsWith("pekquitto.listeners.0.protocol must be mqtt or websocket, not \"websockets\" ("), protocol);
        var limit = error(hocon("listeners = [ { port = 1 }, { max-connections = 0 } ]"));
        assertTrue(limit.startsWith("pekquitto.listeners.1.max-connections: max-connections 0 is neither -1"), limit);
        var version = error(hocon("listeners = [ { protocol-versions = [\"3.1.1\", \"4\"] } ]"));
        assertTrue(version.startsWith("pekquitto.listeners.0.protocol-versions: \"4\" is not an MQTT version"), version);
        var none = error(hocon("listeners = [ { protocol-versions = [] } ]"));
        assertTrue(none.startsWith("pekquitto.listeners.0.protocol-versions must name at least one version"), none);
        var path = error(hocon("listeners = [ { protocol = websocket, path = \"mqtt\" } ]"));
        assertTrue(path.startsWith("pekquitto.listeners.0.path: path \"mqtt\" does not start with /"), path);
    }

    @Test
    void reusePortIsOffUnlessAListenerOrTheDefaultsSayOn() {
        // Off by default: another broker on the same port with it would take half the connections silently.
        var listeners = SettingsReader.read(hocon("listeners = [ { port = 1883 }, { port = 1884, reuse-port = true } ]")).listeners();
        assertEquals(List.of(false, true), listeners.stream().map(ListenerSettings::reusePort).toList());
        var defaults = SettingsReader.read(hocon("listener-defaults.reuse-port = true\nlisteners = [ { port = 1883 } ]")).listeners();
        assertTrue(defaults.get(0).reusePort());
    }

    @Test
    void badReusePortNamesItsPath() {
        var message = error(hocon("listeners = [ { port = 1883 }, { port = 1884, reuse-port = sometimes } ]"));
        assertTrue(message.contains("pekquitto.listeners.1.reuse-port"), message);
        assertTrue(message.contains(HOCON_FILE + ": 1"), message);
    }

    @Test
    void noListenerIsRefused() {
        assertEquals("pekquitto.listeners needs at least one listener (" + HOCON_FILE + ": 1)", error(hocon("listeners = []")));
    }

    @Test
    void slowSubscriberPolicyIsQueueUnlessThrottleIsAskedFor() {
        assertEquals(SlowSubscriberPolicy.QUEUE, SettingsReader.read(SettingsReader.defaults()).slowSubscriberPolicy());
        assertEquals(SlowSubscriberPolicy.THROTTLE,
                SettingsReader.read(hocon("slow-subscriber-policy = throttle")).slowSubscriberPolicy());
    }

    @Test
    void unknownSlowSubscriberPolicyNamesTheKeyAndTheValues() {
        assertEquals("pekquitto.slow-subscriber-policy must be queue or throttle, not drop (" + HOCON_FILE + ": 1)",
                error(hocon("slow-subscriber-policy = drop")));
    }

    @Test
    void theMemoryBudgetIsHalfTheHeapLessThePartialPacketBudgetAndAtLeastAnEighth() {
        long mib = 1 << 20;
        assertEquals(96 * mib, MemorySettings.autoBudget(256 * mib, 64 * mib), "bin/pekquitto's 256 MiB, a quarter for partial packets");
        assertEquals(8 * mib, MemorySettings.autoBudget(64 * mib, 60 * mib));
        var auto = SettingsReader.read(hocon("shards = 2")).memory();
        long heap = Runtime.getRuntime().maxMemory();
        assertEquals(MemorySettings.autoBudget(heap, heap / 4), auto.budget());
        assertEquals(auto.budget() / 2 / 4, auto.clientShare(), "max-queued-bytes = auto: a quarter of a shard's part");
        assertEquals(Duration.ofSeconds(10), auto.overShareGrace());
    }

    @Test
    void aBudgetOfAGivenSizeIsSplitAmongTheShards() {
        var settings = SettingsReader.read(hocon("shards = 2\nmemory.budget = 200MiB"));
        assertEquals(200L << 20, settings.memory().budget());
        assertEquals(100L << 20, settings.memory().shardBudget(2));
        assertEquals(25L << 20, settings.memory().clientShare());
        assertEquals(0, settings.maxQueuedBytes(), "auto limits what a session holds in the heap, not its queue in the store");
    }

    @Test
    void anExplicitMaxQueuedBytesLimitsTheQueueAsBeforeAndRaisesTheClientsShare() {
        var small = SettingsReader.read(hocon("memory.budget = 80MiB\nshards = 1\nmax-queued-bytes = 10"));
        assertEquals(10, small.maxQueuedBytes(), "Mosquitto's limit on the queue's payload bytes");
        assertEquals(20L << 20, small.memory().clientShare(), "a share of 10 bytes would cut that queue short");
        var large = SettingsReader.read(hocon("memory.budget = 80MiB\nshards = 1\nmax-queued-bytes = 30MiB"));
        assertEquals(30L << 20, large.maxQueuedBytes());
        assertEquals(30L << 20, large.memory().clientShare(), "a larger queue limit is a larger share");
        var none = SettingsReader.read(hocon("max-queued-bytes = 0"));
        assertEquals(0, none.maxQueuedBytes());
        assertEquals(0, none.memory().clientShare(), "0: no share, the shard's budget alone");
    }

    @Test
    void aBudgetOfZeroTurnsEveryMemoryRuleOff() {
        var off = SettingsReader.read(hocon("memory.budget = 0")).memory();
        assertFalse(off.enabled());
        assertEquals(0, off.clientShare(), "max-queued-bytes = auto then limits nothing");
        var explicit = SettingsReader.read(hocon("memory.budget = 0\nmax-queued-bytes = 1MiB"));
        assertEquals(1L << 20, explicit.maxQueuedBytes(), "an explicit queue limit still holds, as before budgets");
        assertEquals(0, explicit.memory().clientShare());
    }
}
