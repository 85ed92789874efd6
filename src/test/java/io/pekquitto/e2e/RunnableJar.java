package io.pekquitto.e2e;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The runnable jar, {@code ops/target/pekquitto.jar}, started as a child JVM with a configuration file,
 * as an operator would start it. Its output goes to files, so a full pipe can never block it; the
 * bound port is read from its log line {@code listening on [host:port]}, so the file may ask for port 0.
 */
public final class RunnableJar implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    private static final Pattern LISTENING = Pattern.compile("listening on \\[.*:(\\d+)]");

    private final Process process;
    private final Path dir;
    private final int port;

    private RunnableJar(Process process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.port = port;
    }

    /** The jar's path, which Failsafe passes in the system property {@code pekquitto.jar}. */
    public static String path() {
        var jar = System.getProperty("pekquitto.jar");
        assertNotNull(jar, "pekquitto.jar is set by Failsafe: run with mvn verify");
        return jar;
    }

    /** The {@code java} launcher of the JVM running the tests. */
    public static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Starts the jar with {@code configuration} (HOCON keys without the {@code pekquitto} root) as its {@code -c} file. */
    public static RunnableJar start(String configuration) throws IOException, InterruptedException {
        var dir = Files.createTempDirectory("pekquitto-jar");
        var file = Files.writeString(dir.resolve("broker.conf"), configuration);
        var stderr = dir.resolve("stderr");
        // In its own directory: the store it keeps by default (./data) goes with it.
        var process = new ProcessBuilder(java(), "-jar", path(), "-c", file.toString()).directory(dir.toFile())
                .redirectOutput(dir.resolve("stdout").toFile()).redirectError(stderr.toFile()).start();
        try {
            return new RunnableJar(process, dir, awaitPort(process, stderr));
        } catch (IOException | InterruptedException | RuntimeException | AssertionError e) {
            process.destroyForcibly();
            delete(dir);
            throw e;
        }
    }

    /** The port of the first listener, from the first {@code listening on} line the broker logs (on stderr). */
    private static int awaitPort(Process process, Path stderr) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            var log = Files.readString(stderr);
            var listening = LISTENING.matcher(log);
            if (listening.find()) return Integer.parseInt(listening.group(1));
            if (!process.isAlive()) fail("pekquitto exited with " + process.exitValue() + ": " + log);
            Thread.sleep(50);
        }
        return fail("pekquitto did not log its port within " + START_TIMEOUT + ": " + Files.readString(stderr));
    }

    public int port() {
        return port;
    }

    /** What the broker has logged so far (on stderr). */
    public String log() throws IOException {
        return Files.readString(dir.resolve("stderr"));
    }

    /** Stops the broker as an operator would (SIGTERM, so its shutdown hook runs), then by force if it hangs. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) process.destroyForcibly().waitFor();
        delete(dir);
    }

    /** Sends SIGTERM and waits for the broker to exit; returns its exit status. The log stays readable until {@link #close}. */
    public int terminate() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) fail("pekquitto did not exit within " + STOP_TIMEOUT);
        return process.exitValue();
    }

    /** Kills the broker with SIGKILL: no shutdown hook, nothing flushed, as in a crash. */
    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
        delete(dir);
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // A temporary directory left behind is harmless.
        }
    }
}
