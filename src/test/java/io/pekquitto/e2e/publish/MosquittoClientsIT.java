package io.pekquitto.e2e.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pekquitto.e2e.Names;
import io.pekquitto.ops.Pekquitto;
import io.pekquitto.shards.settings.BrokerSettings;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Mosquitto's command line clients (Debian package mosquitto-clients) as child processes: a third,
 * C implementation of both protocol versions. Every process has a deadline and is killed in finally.
 */
class MosquittoClientsIT {
    private static final Duration DEADLINE = Duration.ofSeconds(10);
    /** mosquitto_sub prints each message as topic|payload|QoS|retain. */
    private static final String FORMAT = "%t|%p|%q|%r";

    private static Pekquitto broker;
    private static int port;

    @BeforeAll
    static void startBroker() {
        assumeTrue(Stream.of("/usr/bin/mosquitto_pub", "/usr/bin/mosquitto_sub", "/usr/bin/stdbuf")
                .allMatch(p -> Files.isExecutable(Path.of(p))), "mosquitto-clients or stdbuf is not installed");
        broker = Pekquitto.start(BrokerSettings.parse("shards = 1\nlisteners = [{host = \"127.0.0.1\", port = 0}]"));
        port = broker.port();
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) broker.close();
    }

    @ParameterizedTest(name = "-V {0}")
    @ValueSource(strings = {"mqttv311", "5"})
    @Timeout(30)
    @DisplayName("mosquitto_pub to mosquitto_sub at QoS 1 [MQTT-4.3.2-2] [MQTT-3.8.4-6 (3.1.1)] [MQTT-3.8.4-8 (5.0)]")
    void qos1RoundTrip(String version) throws Exception {
        String topic = Names.topic("mosquitto");
        // stdbuf: mosquitto_sub's stdout is a pipe here, and its debug lines must come out as printed.
        try (var subscriber = ChildProcess.start("stdbuf", "-oL", "mosquitto_sub", "-h", "127.0.0.1", "-p",
                Integer.toString(port), "-V", version, "-i", Names.clientId("msub"), "-q", "1", "-t", topic,
                "-C", "1", "-W", "10", "-d", "-F", FORMAT)) {
            subscriber.awaitLine(line -> line.contains("received SUBACK"));
            try (var publisher = ChildProcess.start("mosquitto_pub", "-h", "127.0.0.1", "-p", Integer.toString(port),
                    "-V", version, "-i", Names.clientId("mpub"), "-q", "1", "-t", topic, "-m", "hello mosquitto")) {
                assertEquals(0, publisher.awaitExit(), () -> "mosquitto_pub failed: " + publisher.output());
            }
            subscriber.awaitLine(line -> line.equals(topic + "|hello mosquitto|1|0"));
            assertEquals(0, subscriber.awaitExit(), () -> "mosquitto_sub failed: " + subscriber.output());
        }
    }

    @ParameterizedTest(name = "-V {0}")
    @ValueSource(strings = {"mqttv311", "5"})
    @Timeout(30)
    @DisplayName("mosquitto_pub -r leaves a retained message that a later mosquitto_sub receives with RETAIN 1 [MQTT-3.3.1-8 (3.1.1)] [MQTT-3.3.1-9 (5.0)]")
    void retainedMessage(String version) throws Exception {
        String topic = Names.topic("mosquitto-retained");
        try (var publisher = ChildProcess.start("mosquitto_pub", "-h", "127.0.0.1", "-p", Integer.toString(port),
                "-V", version, "-i", Names.clientId("mpub"), "-q", "1", "-r", "-t", topic, "-m", "kept")) {
            assertEquals(0, publisher.awaitExit(), () -> "mosquitto_pub failed: " + publisher.output());
        }
        try (var subscriber = ChildProcess.start("mosquitto_sub", "-h", "127.0.0.1", "-p", Integer.toString(port),
                "-V", version, "-i", Names.clientId("msub"), "-q", "1", "-t", topic, "-C", "1", "-W", "10",
                "-F", FORMAT)) {
            subscriber.awaitLine(line -> line.equals(topic + "|kept|1|1"));
            assertEquals(0, subscriber.awaitExit(), () -> "mosquitto_sub failed: " + subscriber.output());
        }
    }

    /** A child process whose output lines are collected by a reader thread; killed on close. */
    private static final class ChildProcess implements AutoCloseable {
        private final Process process;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final List<String> seen = new ArrayList<>();

        private ChildProcess(Process process) {
            this.process = process;
            var reader = new Thread(() -> {
                try (var in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = in.readLine(); line != null; line = in.readLine()) lines.add(line);
                } catch (IOException e) {
                    lines.add("<output read failed: " + e + ">");
                }
            }, "output-" + process.pid());
            reader.setDaemon(true);
            reader.start();
        }

        static ChildProcess start(String... command) throws IOException {
            return new ChildProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
        }

        /** Waits for an output line matching the predicate; fails at the deadline. */
        void awaitLine(Predicate<String> wanted) throws InterruptedException {
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            for (long left = DEADLINE.toNanos(); left > 0; left = deadline - System.nanoTime()) {
                String line = lines.poll(left, TimeUnit.NANOSECONDS);
                if (line == null) break;
                seen.add(line);
                if (wanted.test(line)) return;
            }
            fail("no expected line within " + DEADLINE + "; output so far: " + output());
        }

        int awaitExit() throws InterruptedException {
            if (!process.waitFor(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) fail("still running after " + DEADLINE + ": " + output());
            return process.exitValue();
        }

        String output() {
            lines.drainTo(seen);
            return String.join("\n", seen);
        }

        @Override
        public void close() {
            process.destroyForcibly();
        }
    }
}
