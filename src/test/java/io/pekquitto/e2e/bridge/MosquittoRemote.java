package io.pekquitto.e2e.bridge;

import io.pekquitto.e2e.interop.ChildProcess;
import io.pekquitto.e2e.interop.MosquittoBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A real Mosquitto broker (Debian's package) as a bridge's remote: on 127.0.0.1 and a port of its own,
 * which it keeps across {@link #stop()} and {@link #start()} (where {@link MosquittoBroker} runs one
 * for its lifetime), with its persistence in a directory of its own so that a persistent subscriber's
 * session outlives a restart.
 */
final class MosquittoRemote implements AutoCloseable {
    private final Path directory;
    private final int port;
    private final List<String> extraLines;
    private ChildProcess process;

    private MosquittoRemote(Path directory, int port, List<String> extraLines) {
        this.directory = directory;
        this.port = port;
        this.extraLines = extraLines;
    }

    /** A Mosquitto started on a free port, with {@code extraLines} appended to its configuration. */
    static MosquittoRemote launch(String... extraLines) throws Exception {
        var remote = new MosquittoRemote(Files.createTempDirectory("mosquitto-remote"), MosquittoBroker.freePort(), List.of(extraLines));
        remote.start();
        return remote;
    }

    int port() {
        return port;
    }

    Path directory() {
        return directory;
    }

    /** Starts it (again) on its port, and waits until it serves. */
    void start() throws Exception {
        var lines = new ArrayList<>(List.of(
                "listener " + port + " 127.0.0.1",
                "allow_anonymous true",
                "persistence true",
                "persistence_location " + directory.toAbsolutePath() + "/",
                // As root, Mosquitto would switch to its own user, who cannot write the test's directory.
                "user " + System.getProperty("user.name")));
        lines.addAll(extraLines);
        var config = Files.write(directory.resolve("mosquitto.conf"), lines);
        process = ChildProcess.start(List.of(MosquittoBroker.program("mosquitto"), "-v", "-c", config.toString()));
        process.awaitLine(line -> line.contains(" running"));
    }

    /** Stops it (SIGTERM: it saves its sessions and queues) and waits until it has. */
    void stop() throws InterruptedException {
        if (process == null) return;
        process.terminate();
        process = null;
    }

    String output() {
        return process == null ? "(stopped)" : process.output();
    }

    @Override
    public void close() throws Exception {
        stop();
        try (var files = Files.walk(directory)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }
}
