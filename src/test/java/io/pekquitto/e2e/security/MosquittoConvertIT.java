package io.pekquitto.e2e.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.RunnableJar;
import io.pekquitto.e2e.interop.ChildProcess;
import io.pekquitto.e2e.interop.MosquittoBroker;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code java -jar pekquitto.jar convert mosquitto.conf} (issue 27): the configuration it prints passes
 * {@code --test-config}, and a pekquitto started on it lets in and refuses the clients that Mosquitto (Debian's
 * 2.0, which {@code .ci/run} installs) lets in and refuses on the original, with Mosquitto's own password file.
 */
class MosquittoConvertIT {
    private static final SecurityFiles files = SecurityFiles.create("convert");

    @AfterAll
    static void deleteFiles() {
        files.close();
    }

    @Test
    @Timeout(120)
    @DisplayName("a converted mosquitto.conf passes --test-config, and pekquitto admits and refuses whom Mosquitto does")
    void aConvertedConfigurationBehavesAsTheOriginal() throws Exception {
        var passwords = files.directory().resolve("convert-passwords");
        PasswordInteropIT.addUsers(List.of(MosquittoBroker.program("mosquitto_passwd")), passwords);
        int port = MosquittoBroker.freePort();
        var original = files.write("mosquitto.conf",
                "# as a Mosquitto 2.0 deployment has it",
                "per_listener_settings false",
                "listener " + port + " 127.0.0.1",
                "allow_anonymous false",
                "password_file " + passwords.toAbsolutePath(),
                "max_queued_messages 100",
                "log_dest stderr",
                // As root, Mosquitto would switch to its own user, who cannot read the test's directory.
                "user " + System.getProperty("user.name"));

        String converted;
        try (var convert = ChildProcess.start(List.of(RunnableJar.java(), "-jar", RunnableJar.path(), "convert", original.toString()))) {
            assertEquals(0, convert.awaitExit(), convert::output);
            converted = convert.output();
        }
        assertTrue(converted.contains("log_dest stderr") && converted.contains("user "), converted);  // said, not lost
        var file = files.write("pekquitto.conf", converted);
        try (var check = ChildProcess.start(List.of(RunnableJar.java(), "-jar", RunnableJar.path(), "-c", file.toString(), "--test-config"))) {
            assertEquals(0, check.awaitExit(), () -> check.output() + "\n--- the converted file:\n" + converted);
        }

        try (var pekquitto = RunnableJar.start(converted)) {
            assertEquals(port, pekquitto.port(), "the listener's port carried over");
            assertAdmitsAliceAndBobAndNotAWrongPassword(port, "pekquitto");
        }
        try (var mosquitto = ChildProcess.start(List.of(MosquittoBroker.program("mosquitto"), "-c", original.toString()))) {
            mosquitto.awaitLine(line -> line.contains(" running"));
            assertAdmitsAliceAndBobAndNotAWrongPassword(port, "Mosquitto");
        }
    }

    private static void assertAdmitsAliceAndBobAndNotAWrongPassword(int port, String broker) throws Exception {
        assertEquals(0, PasswordInteropIT.publish(port, "alice", "wonderland"), broker + " refused alice");
        assertEquals(0, PasswordInteropIT.publish(port, "bob", "builder"), broker + " refused bob");
        assertNotEquals(0, PasswordInteropIT.publish(port, "alice", "builder"), broker + " let a wrong password in");
    }
}
