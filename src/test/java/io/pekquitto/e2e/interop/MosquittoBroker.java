package io.pekquitto.e2e.interop;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Mosquitto's broker (2.0, Debian's package mosquitto, which {@code .ci/run} installs) as a child process on
 * 127.0.0.1 and a free port, for the tests that run pekquitto beside it. A test fails rather than skips when
 * it is not installed: a skipped test could never fail on CI. {@link #close} kills it.
 */
public final class MosquittoBroker implements AutoCloseable {
    private final int port;
    private final ChildProcess process;

    private MosquittoBroker(int port, ChildProcess process) {
        this.port = port;
        this.process = process;
    }

    /**
     * Starts Mosquitto with a listener on a free port and {@code lines} after it, its configuration written
     * to {@code directory}, and waits until it says it is running.
     */
    public static MosquittoBroker start(Path directory, List<String> lines) throws IOException, InterruptedException {
        return start(directory, freePort(), lines);
    }

    /** As {@link #start(Path, List)}, on {@code port}: a broker started again where its clients knew it. */
    public static MosquittoBroker start(Path directory, int port, List<String> lines) throws IOException, InterruptedException {
        var config = new ArrayList<>(List.of("listener " + port + " 127.0.0.1", "allow_anonymous true",
                // As root, Mosquitto would switch to its own user, who cannot read the test's directory.
                "user " + System.getProperty("user.name")));
        config.addAll(lines);
        var file = Files.write(directory.resolve("mosquitto-" + port + ".conf"), config, StandardCharsets.UTF_8);
        var process = ChildProcess.start(List.of(program("mosquitto"), "-c", file.toString()));
        var broker = new MosquittoBroker(port, process);
        try {
            process.awaitLine(line -> line.contains(" running"));
        } catch (AssertionError | InterruptedException e) {
            broker.close();
            throw e;
        }
        return broker;
    }

    /** A program of Debian's mosquitto package: mosquitto is in /usr/sbin, not on every PATH. */
    public static String program(String name) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(":"), new String[] {"/usr/sbin", "/usr/bin"})
                .flatMap(Stream::of)
                .map(dir -> Path.of(dir, name))
                .filter(Files::isExecutable)
                .findFirst()
                .map(Path::toString)
                .orElseGet(() -> fail(name + " is not installed: `sudo apt-get install mosquitto` (.ci/run installs it)"));
    }

    /** A port free on this machine now (another process may still take it before it is used). */
    public static int freePort() throws IOException {
        try (var probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }

    public int port() {
        return port;
    }

    /** Its log so far (stdout and stderr). */
    public String output() {
        return process.output();
    }

    /** Stops it with SIGTERM, as its service would be (it saves its persistence then), and waits until it has. */
    public void terminate() throws InterruptedException {
        process.terminate();
    }

    @Override
    public void close() {
        process.close();
    }
}
