package io.pekquitto.e2e.config;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.pekquitto.e2e.Eventually;
import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.ops.ConfigLoader;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The runnable jar, {@code ops/target/pekquitto.jar}, started as a child JVM as an operator would. */
@Timeout(120)
class RunnableJarIT {

    private static final long EXIT_TIMEOUT_SECONDS = 60;

    @TempDir
    Path dir;
    /** The port of the jar {@link #jarOnFreePort} started last. */
    private int jarPort;

    private int processes;

    private record Exit(int status, String stdout, String stderr) {}

    /** Runs a JVM to its end; output goes to files, so a full pipe can never block it. */
    private Exit runToExit(List<String> command) throws IOException, InterruptedException {
        var n = ++processes;
        var stdout = dir.resolve("stdout-" + n);
        var stderr = dir.resolve("stderr-" + n);
        var process = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        try {
            if (!process.waitFor(EXIT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                fail("did not exit within " + EXIT_TIMEOUT_SECONDS + " s: " + command);
            }
            return new Exit(process.exitValue(), Files.readString(stdout), Files.readString(stderr));
        } finally {
            process.destroyForcibly();
        }
    }

    private Exit runJar(String... args) throws IOException, InterruptedException {
        var command = new ArrayList<>(List.of(RunnableJar.java(), "-jar", RunnableJar.path()));
        command.addAll(List.of(args));
        return runToExit(command);
    }

    @Test
    void unknownKeyInATomlFileStopsTheJarNamingKeyAndFile() throws Exception {
        var file = Files.writeString(dir.resolve("broker.toml"), "max-qos = 1\nmax_inflight_messages = 10\n");

        var exit = runJar("-c", file.toString());

        assertNotEquals(0, exit.status());
        assertTrue(exit.stderr().startsWith("pekquitto: pekquitto.max_inflight_messages is not a known key (" + file + ")"),
                exit.stderr());
        assertEquals("", exit.stdout());
    }

    @Test
    void theJarCarriesRocksDbForLinuxOnX86AndArmAloneAndStaysUnder60MB() throws Exception {
        var jar = Path.of(RunnableJar.path());
        List<String> natives;
        try (var entries = new java.util.zip.ZipFile(jar.toFile())) {
            natives = entries.stream().map(java.util.zip.ZipEntry::getName).filter(name -> name.startsWith("librocksdbjni")).sorted().toList();
        }
        assertEquals(List.of("librocksdbjni-linux-aarch64.so", "librocksdbjni-linux64.so"), natives, "README: the platforms the jar runs a store on");
        long size = Files.size(jar);
        assertTrue(size < 60_000_000L, () -> jar + " is " + size + " bytes: issue 27 asks under 60 MB");
    }

    @Test
    void versionComesFromTheJarManifest() throws Exception {
        var exit = runJar("--version");

        assertEquals(0, exit.status(), exit.stderr());
        assertTrue(exit.stdout().matches("pekquitto \\S+\\R"), exit.stdout());
        assertNotEquals("pekquitto dev", exit.stdout().strip(), "the manifest's Implementation-Version is missing");
    }

    /**
     * Shading appends every reference.conf into one file, ours first, so Pekko's own defaults come
     * after our pekko block; the actor system's configuration must still log through SLF4J.
     */
    @Test
    void actorSystemInTheJarLogsThroughSlf4j() throws Exception {
        var testClasses = Path.of(PrintPekkoLoggers.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        var classPath = RunnableJar.path() + java.io.File.pathSeparator + testClasses;

        var exit = runToExit(List.of(RunnableJar.java(), "-cp", classPath, PrintPekkoLoggers.class.getName()));

        assertEquals(0, exit.status(), exit.stderr());
        assertEquals("[org.apache.pekko.event.slf4j.Slf4jLogger] OFF", exit.stdout().strip());
    }

    /** Run inside the child JVM by {@link #actorSystemInTheJarLogsThroughSlf4j}. */
    static final class PrintPekkoLoggers {
        public static void main(String[] args) {
            var config = ConfigLoader.actorSystemConfig();
            System.out.println(config.getStringList("pekko.loggers") + " " + config.getString("pekko.stdout-loglevel"));
        }
    }

    private static final byte[] CONNECT_3_1_1 = {
        0x10, 21,                        // fixed header: CONNECT; remaining length
        0, 4, 'M', 'Q', 'T', 'T',        // protocol name
        4,                               // protocol level: 3.1.1
        0x02,                            // connect flags: clean session
        0, 60,                           // keep alive: 60 s
        0, 9, 'c', 'o', 'n', 'f', 'i', 'g', '-', 'i', 't' };  // client identifier "config-it"

    private static final byte[] CONNACK_ACCEPTED = {
        0x20, 2,                         // fixed header: CONNACK; remaining length
        0,                               // session present: no [MQTT-3.2.2-1]
        0 };                             // return code: accepted

    @Test
    void jarListensOnThePortGivenWithP() throws Exception {
        var stderr = dir.resolve("broker-stderr");
        var process = jarOnFreePort(Map.of(), stderr);
        try {
            connectOnce(process, stderr);
        } finally {
            process.destroyForcibly();
        }
    }

    @Test
    void withTheJsonFormatEachLogLineIsAJsonObject() throws Exception {
        var stderr = dir.resolve("json-stderr");
        var process = jarOnFreePort(Map.of("PEKQUITTO_LOG_FORMAT", "json"), stderr);
        try {
            connectOnce(process, stderr);
        } finally {
            process.destroy();
            process.waitFor(10, TimeUnit.SECONDS);
            process.destroyForcibly();
        }
        var lines = Files.readAllLines(stderr).stream().filter(line -> !line.isBlank()).toList();
        assertTrue(lines.stream().anyMatch(line -> line.contains("listening on [127.0.0.1:")), String.join("\n", lines));
        assertTrue(lines.stream().anyMatch(line -> line.contains("New client connected from")), String.join("\n", lines));
        for (var line : lines) {
            assertTrue(line.startsWith("{") && line.endsWith("}") && line.contains("\"level\":\"")
                    && line.contains("\"formattedMessage\":\""), line);
        }
    }

    /** The jar on a free port given with {@code -p}, in the test's directory, with {@code environment} added. */
    private Process jarOnFreePort(Map<String, String> environment, Path stderr) throws IOException {
        try (var probe = new ServerSocket(0)) {
            jarPort = probe.getLocalPort();
        }
        var builder = new ProcessBuilder(RunnableJar.java(), "-jar", RunnableJar.path(), "-p", String.valueOf(jarPort))
                .directory(dir.toFile()).redirectOutput(dir.resolve("stdout").toFile()).redirectError(stderr.toFile());
        builder.environment().putAll(environment);
        return builder.start();
    }

    /** A 3.1.1 CONNECT to the jar started last, which must accept it. */
    private void connectOnce(Process process, Path stderr) throws IOException, InterruptedException {
        try (var socket = connectWithin(jarPort, 30_000, process, stderr)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(CONNECT_3_1_1);
            assertArrayEquals(CONNACK_ACCEPTED, socket.getInputStream().readNBytes(CONNACK_ACCEPTED.length));
        }
    }

    private static Socket connectWithin(int port, long millis, Process broker, Path stderr) {
        return Eventually.await(Duration.ofMillis(millis), () -> "pekquitto to listen on " + port + ": " + read(stderr), () -> {
            if (!broker.isAlive()) fail("pekquitto exited with " + broker.exitValue() + ": " + Files.readString(stderr));
            try {
                return new Socket("127.0.0.1", port);
            } catch (ConnectException e) {
                return null;  // not listening yet
            }
        }, Objects::nonNull);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }
}
