package io.pekquitto.e2e.interop;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Command lines of Mosquitto's clients (2.0, Debian package mosquitto-clients) against a broker on this
 * machine, to run as a {@link ChildProcess}. A test that needs them fails when they are not installed
 * rather than skipping: a skipped test could never fail on CI ({@code .ci/run} installs them).
 */
public final class MosquittoClients {
    /** mosquitto_sub prints each message as topic|payload|QoS|retain with {@code -F FORMAT}. */
    public static final String FORMAT = "%t|%p|%q|%r";
    /** The programs the command lines run, and the Debian package of each. */
    private static final Map<String, String> PACKAGES =
            Map.of("mosquitto_pub", "mosquitto-clients", "mosquitto_sub", "mosquitto-clients", "stdbuf", "coreutils");

    private MosquittoClients() {}

    /** mosquitto_sub with line-buffered stdout (a pipe here) and the common options first. */
    public static List<String> sub(int port, String version, String clientId, String... options) {
        return command(List.of("stdbuf", "-oL", "mosquitto_sub"), port, version, clientId, options);
    }

    public static List<String> pub(int port, String version, String clientId, String... options) {
        return command(List.of("mosquitto_pub"), port, version, clientId, options);
    }

    private static List<String> command(List<String> program, int port, String version, String clientId, String... options) {
        requireInstalled();
        var command = new ArrayList<>(program);
        command.addAll(List.of("-h", "127.0.0.1", "-p", Integer.toString(port), "-V", version, "-i", clientId));
        command.addAll(List.of(options));
        return command;
    }

    private static void requireInstalled() {
        PACKAGES.forEach((program, debianPackage) -> {
            if (!onPath(program)) {
                fail(program + " is not on the PATH: install the package " + debianPackage + ", e.g. `sudo apt-get install "
                        + debianPackage + "` (.ci/run installs mosquitto-clients)");
            }
        });
    }

    private static boolean onPath(String program) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .anyMatch(dir -> Files.isExecutable(Path.of(dir, program)));
    }
}
