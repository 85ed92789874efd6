package io.pekquitto.e2e.websocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A script of the JavaScript test harness ({@code src/test/js}, MQTT.js and playwright-core) run with
 * node as a child process: each prints one line per check and exits 0 only if all passed. A test is
 * skipped, with the reason, only when node, the harness's node modules or Chromium are missing;
 * {@code .ci/run} installs all three, so CI runs it.
 */
public final class NodeScript {
    /** The harness: Failsafe names it ({@code pekquitto.js-tests} in ops/pom.xml); from an IDE, found from here. */
    static final Path DIRECTORY = Path.of(System.getProperty("pekquitto.js-tests",
            Files.isDirectory(Path.of("src/test/js")) ? "src/test/js" : "../src/test/js")).toAbsolutePath().normalize();
    static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));

    private NodeScript() {}

    /** Skips the test unless node runs and {@code npm ci} has installed the harness's modules. */
    static void assumeNode() {
        assumeTrue(nodeRuns(), "node is not on the PATH: the WebSocket tests with MQTT.js need it (.ci/run installs it)");
        for (var module : List.of("mqtt", "playwright-core")) {
            assumeTrue(Files.isDirectory(DIRECTORY.resolve("node_modules").resolve(module)),
                    "no node module " + module + " in " + DIRECTORY + ": run 'npm ci' there (.ci/run does)");
        }
    }

    /** Skips the test unless {@link #assumeNode} holds and Chromium is installed. */
    public static void assumeChromium() {
        assumeNode();
        assumeTrue(Files.isExecutable(CHROMIUM), "no Chromium at " + CHROMIUM
                + ": install Debian's chromium, or set CHROMIUM (.ci/run installs it)");
    }

    private static boolean nodeRuns() {
        try {
            var process = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            process.getInputStream().readAllBytes();
            return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Runs {@code node script arguments...} in the harness's directory and asserts that it exits 0
     * within {@code timeout}; its output goes to this test's output, and into the failure message.
     */
    public static void assertPasses(String script, Duration timeout, String... arguments) throws IOException, InterruptedException {
        var command = new ArrayList<>(List.of("node", script));
        command.addAll(List.of(arguments));
        var output = Files.createTempFile("pekquitto-" + script, ".out");
        try {
            var process = new ProcessBuilder(command).directory(DIRECTORY.toFile())
                    .redirectErrorStream(true).redirectOutput(output.toFile()).start();
            process.getOutputStream().close();
            boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!exited) {
                // Chromium's processes are node's children: end them first, or they outlive the test.
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            var printed = Files.readString(output, StandardCharsets.UTF_8);
            System.out.println(String.join(" ", command) + "\n" + printed);
            if (!exited) fail(script + " still ran after " + timeout + ":\n" + printed);
            assertEquals(0, process.exitValue(), () -> script + " failed:\n" + printed);
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
