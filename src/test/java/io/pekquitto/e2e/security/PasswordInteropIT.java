package io.pekquitto.e2e.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.e2e.interop.ChildProcess;
import io.pekquitto.e2e.interop.MosquittoBroker;
import io.pekquitto.e2e.interop.MosquittoClients;
import io.pekquitto.ops.Pekquitto;
import io.pekquitto.shards.settings.BrokerSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Password files go both ways between pekquitto and Mosquitto (2.0, Debian's packages, which
 * {@code .ci/run} installs): a file made by {@code mosquitto_passwd} authenticates against pekquitto,
 * and one made by {@code pekquitto passwd} against Mosquitto's broker. A test fails rather than skips
 * when Mosquitto is not installed: a skipped test could never fail on CI.
 */
class PasswordInteropIT {
    private static final SecurityFiles files = SecurityFiles.create("password-interop");

    @AfterAll
    static void deleteFiles() {
        files.close();
    }

    /** Creates {@code file} with alice (wonderland) and bob (builder) by {@code passwd} in batch mode. */
    static void addUsers(List<String> passwd, Path file) throws Exception {
        for (var args : List.of(List.of("-c", "-b", file.toString(), "alice", "wonderland"),
                                List.of("-b", file.toString(), "bob", "builder"))) {
            try (var process = ChildProcess.start(Stream.concat(passwd.stream(), args.stream()).toList())) {
                assertEquals(0, process.awaitExit(), process::output);
            }
        }
    }

    @Test
    @Timeout(30)
    @DisplayName("a password file made by mosquitto_passwd authenticates against pekquitto")
    void mosquittoPasswdFileWorksInPekquitto() throws Exception {
        var file = files.directory().resolve("by-mosquitto_passwd");
        addUsers(List.of(MosquittoBroker.program("mosquitto_passwd")), file);
        var settings = BrokerSettings.parse("""
                shards = 1
                listeners = [{host = "127.0.0.1", port = 0}]
                auth.password-file = %s
                """.formatted(SecurityFiles.quoted(file)));
        try (var broker = Pekquitto.start(settings)) {
            for (var user : List.of("alice:wonderland", "bob:builder")) {
                var parts = user.split(":");
                Hive5.connect(broker.port(), Names.clientId(parts[0]), Optional.of(parts[0]), Optional.of(parts[1])).close();
            }
            assertEquals(0x86, Hive5.refusal(broker.port(), Names.clientId("alice"), Optional.of("alice"), Optional.of("builder")));
        }
    }

    @Test
    @Timeout(60)
    @DisplayName("a password file made by `java -jar pekquitto.jar passwd` authenticates against Mosquitto's broker")
    void pekquittoPasswdFileWorksInMosquitto() throws Exception {
        var file = files.directory().resolve("by-pekquitto-passwd");
        addUsers(List.of(RunnableJar.java(), "-jar", RunnableJar.path(), "passwd"), file);
        int port = MosquittoBroker.freePort();
        var config = files.write("mosquitto.conf",
                "listener " + port + " 127.0.0.1",
                "allow_anonymous false",
                "password_file " + file.toAbsolutePath(),
                // As root, Mosquitto would switch to its own user, who cannot read the test's directory.
                "user " + System.getProperty("user.name"));
        try (var mosquitto = ChildProcess.start(List.of(MosquittoBroker.program("mosquitto"), "-c", config.toString()))) {
            mosquitto.awaitLine(line -> line.contains(" running"));
            for (var user : List.of("alice:wonderland", "bob:builder")) {
                var parts = user.split(":");
                assertEquals(0, publish(port, parts[0], parts[1]), () -> "Mosquitto refused " + parts[0] + ": " + mosquitto.output());
            }
            assertNotEquals(0, publish(port, "alice", "builder"), "Mosquitto let a wrong password in");
        }
    }

    /** mosquitto_pub's exit status: 0 when it connected and published. */
    static int publish(int port, String username, String password) throws Exception {
        try (var pub = ChildProcess.start(MosquittoClients.pub(port, "5", Names.clientId("mpub"),
                "-u", username, "-P", password, "-q", "1", "-t", "interop", "-m", "hello"))) {
            return pub.awaitExit();
        }
    }

    @Test
    @DisplayName("passwd -D removes a user, who can then no longer connect")
    void passwdDeletesAUser() throws Exception {
        var file = files.passwords("carol", "c-secret", "dave", "d-secret");
        SecurityFiles.passwd(List.of("-D", file.toString(), "carol"));
        assertEquals(List.of("dave"), Files.readAllLines(file, StandardCharsets.UTF_8).stream()
                .map(line -> line.substring(0, line.indexOf(':'))).toList());
        var settings = BrokerSettings.parse("""
                shards = 1
                listeners = [{host = "127.0.0.1", port = 0}]
                auth.password-file = %s
                """.formatted(SecurityFiles.quoted(file)));
        try (var broker = Pekquitto.start(settings)) {
            assertEquals(0x86, Hive5.refusal(broker.port(), Names.clientId("carol"), Optional.of("carol"), Optional.of("c-secret")));
            Hive5.connect(broker.port(), Names.clientId("dave"), Optional.of("dave"), Optional.of("d-secret")).close();
        }
        assertThrows(AssertionError.class, () -> SecurityFiles.passwd(List.of("-D", file.toString(), "nobody")));
    }
}
