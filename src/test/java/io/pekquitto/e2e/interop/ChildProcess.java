package io.pekquitto.e2e.interop;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A child process (mosquitto_pub, mosquitto_sub) whose output lines, stdout and stderr merged, are
 * collected by a reader thread. Every wait has a deadline; {@link #close} kills the process
 * (SIGKILL on Linux), so a try-with-resources never leaves one behind.
 */
public final class ChildProcess implements AutoCloseable {
    public static final Duration DEADLINE = Duration.ofSeconds(10);

    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();
    private final Thread reader;

    private ChildProcess(Process process) {
        this.process = process;
        reader = new Thread(() -> {
            try (var in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) lines.add(line);
            } catch (IOException e) {
                lines.add("<output read failed: " + e + ">");
            }
        }, "output-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code command}; its stdin is closed at once. */
    public static ChildProcess start(List<String> command) throws IOException {
        var child = new ChildProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
        child.process.getOutputStream().close();
        return child;
    }

    /** Starts {@code command} and writes {@code input} to its stdin, then closes it. */
    public static ChildProcess start(List<String> command, String input) throws IOException {
        var child = new ChildProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
        try (var stdin = child.process.getOutputStream()) {
            stdin.write(input.getBytes(StandardCharsets.UTF_8));
        }
        return child;
    }

    /** Waits for an output line matching {@code wanted}; fails at the deadline. */
    public String awaitLine(Predicate<String> wanted) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        for (long left = DEADLINE.toNanos(); left > 0; left = deadline - System.nanoTime()) {
            String line = lines.poll(left, TimeUnit.NANOSECONDS);
            if (line == null) break;
            seen.add(line);
            if (wanted.test(line)) return line;
        }
        return fail("no expected line within " + DEADLINE + "; output so far: " + output());
    }

    /** The lines so far that match {@code wanted}, in order, without waiting. */
    public List<String> linesMatching(Predicate<String> wanted) {
        lines.drainTo(seen);
        return seen.stream().filter(wanted).toList();
    }

    /** Waits for the process to exit within the deadline and returns its exit code. */
    public int awaitExit() throws InterruptedException {
        if (!process.waitFor(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) fail("still running after " + DEADLINE + ": " + output());
        // The reader thread may still hold the last lines: after an exit, wait for it to reach EOF.
        reader.join(DEADLINE.toMillis());
        return process.exitValue();
    }

    /** Kills the process with SIGKILL: it sends nothing more, not even DISCONNECT. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) fail("not dead after SIGKILL within " + DEADLINE);
    }

    /** Stops the process with SIGTERM (a broker saves its state then) and waits until it has exited. */
    public void terminate() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) fail("still running " + DEADLINE + " after SIGTERM: " + output());
    }

    public String output() {
        lines.drainTo(seen);
        return String.join("\n", seen);
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
