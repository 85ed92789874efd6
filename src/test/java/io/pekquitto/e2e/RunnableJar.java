package io.pekquitto.e2e;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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

    /** {@code bin/pekquitto}, which Failsafe passes in the system property {@code pekquitto.launcher}. */
    public static String launcher() {
        var launcher = System.getProperty("pekquitto.launcher");
        assertNotNull(launcher, "pekquitto.launcher is set by Failsafe: run with mvn verify");
        return launcher;
    }

    /** Starts the jar with {@code configuration} (HOCON keys without the {@code pekquitto} root) as its {@code -c} file. */
    public static RunnableJar start(String configuration) throws IOException, InterruptedException {
        return start(configuration, List.of());
    }

    /** As {@link #start(String)}, with {@code jvmOptions} (such as {@code -Xmx48m}) before {@code -jar}. */
    public static RunnableJar start(String configuration, List<String> jvmOptions) throws IOException, InterruptedException {
        var command = new ArrayList<String>();
        command.add(java());
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", path()));
        return start(configuration, command, Map.of());
    }

    /**
     * Starts the jar through {@code bin/pekquitto} with {@code configuration} as its {@code -c} file and
     * {@code environment} added to the test's (by default the launcher runs this jar on this JVM).
     */
    public static RunnableJar startWithLauncher(String configuration, Map<String, String> environment)
            throws IOException, InterruptedException {
        return start(configuration, List.of(launcher()), environment);
    }

    /**
     * Starts {@code mainClass}, a test's own main (a broker with a fault injected, say), with the jar and the
     * tests' classes on its class path, {@code arguments} and then {@code -c} with {@code configuration}.
     */
    public static RunnableJar startMain(String configuration, Class<?> mainClass, String... arguments)
            throws IOException, InterruptedException {
        return startMain(configuration, mainClass, List.of(), arguments);
    }

    /** {@link #startMain(String, Class, String...)}, with the classes of {@code fixtures}' jars or folders too (another module's test fixtures). */
    public static RunnableJar startMain(String configuration, Class<?> mainClass, List<Class<?>> fixtures, String... arguments)
            throws IOException, InterruptedException {
        var classPath = new ArrayList<>(List.of(path(), codeSource(mainClass)));
        for (var fixture : fixtures) classPath.add(codeSource(fixture));
        // The jar's logging (ConsoleLogging): the tests' quieter logback-test.xml, which the tests' classes also
        // hold, is read only where the tests' JVM names it (ops/pom.xml).
        var command = new ArrayList<>(List.of(java(), "-cp", String.join(File.pathSeparator, classPath), mainClass.getName()));
        command.addAll(List.of(arguments));
        return start(configuration, command, Map.of());
    }

    /** The jar or folder {@code type} was loaded from. */
    private static String codeSource(Class<?> type) throws IOException {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
    }

    private static RunnableJar start(String configuration, List<String> command, Map<String, String> environment)
            throws IOException, InterruptedException {
        var dir = Files.createTempDirectory("pekquitto-jar");
        var file = Files.writeString(dir.resolve("broker.conf"), configuration);
        var stderr = dir.resolve("stderr");
        var arguments = new ArrayList<>(command);
        arguments.addAll(List.of("-c", file.toString()));
        // In its own directory: the store it keeps by default (./data) goes with it.
        var builder = new ProcessBuilder(arguments).directory(dir.toFile())
                .redirectOutput(dir.resolve("stdout").toFile()).redirectError(stderr.toFile());
        builder.environment().put("PEKQUITTO_JAR", path());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().putAll(environment);
        var process = builder.start();
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
        return Eventually.await(START_TIMEOUT, () -> "pekquitto to log its port: " + readOrSay(stderr), () -> {
            var log = Files.readString(stderr);
            var listening = LISTENING.matcher(log);
            if (listening.find()) return Integer.parseInt(listening.group(1));
            if (!process.isAlive()) fail("pekquitto exited with " + process.exitValue() + ": " + log);
            return null;
        }, Objects::nonNull);
    }

    public int port() {
        return port;
    }

    /** What the broker has logged so far (on stderr). */
    public String log() throws IOException {
        return Files.readString(dir.resolve("stderr"));
    }

    /** Waits until the log holds {@code text} {@code count} times (polled, at most {@code timeout}). */
    public void awaitLog(String text, int count, Duration timeout) throws IOException, InterruptedException {
        Eventually.await(timeout, () -> count + " x '" + text + "' in the log: " + readOrSay(dir.resolve("stderr")),
                () -> occurrences(log(), text) >= count);
    }

    /** A file's text for a failure's message, or why it could not be read. */
    private static String readOrSay(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    private static int occurrences(String log, String text) {
        int count = 0;
        for (int at = log.indexOf(text); at >= 0; at = log.indexOf(text, at + text.length())) count++;
        return count;
    }

    /** The broker's {@code -c} file, for a test to rewrite before a reload. */
    public Path configFile() {
        return dir.resolve("broker.conf");
    }

    /** The broker's process: with the launcher too, the JVM itself (the launcher execs it). */
    public ProcessHandle process() {
        return process.toHandle();
    }

    /** Sends SIGHUP, as {@code kill -HUP PID}: the broker reloads. */
    public void hangUp() throws IOException, InterruptedException {
        var kill = new ProcessBuilder("kill", "-HUP", Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS) || kill.exitValue() != 0) fail("kill -HUP failed");
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

    /** Waits for the broker to exit by itself; returns its exit status. The log stays readable until {@link #close}. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) fail("pekquitto did not exit within " + timeout);
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
