package io.pekquitto.e2e.bridge;

import io.pekquitto.e2e.interop.MosquittoBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
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
    private final List<String> lines;
    private MosquittoBroker broker;

    private MosquittoRemote(Path directory, int port, List<String> extraLines) {
        this.directory = directory;
        this.port = port;
        var lines = new ArrayList<>(List.of(
                "persistence true",
                "persistence_location " + directory.toAbsolutePath() + "/",
                "log_type all"));  // every packet in its log, which a failing test shows
        lines.addAll(extraLines);
        this.lines = List.copyOf(lines);
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

    /** Starts it (again) on its port, and waits until it serves. */
    void start() throws Exception {
        broker = MosquittoBroker.start(directory, port, lines);
    }

    /** Stops it (SIGTERM: it saves its sessions and queues) and waits until it has. */
    void stop() throws InterruptedException {
        if (broker == null) return;
        broker.terminate();
        broker = null;
    }

    String output() {
        return broker == null ? "(stopped)" : broker.output();
    }

    @Override
    public void close() throws Exception {
        stop();
        try (var files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }
}
