package io.pekquitto.e2e.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.e2e.Names;
import io.pekquitto.e2e.RawClient;
import io.pekquitto.e2e.RunnableJar;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/pekquitto}: the broker with the small-footprint flags, started as an operator would. */
@Timeout(120)
class LauncherIT {

    @TempDir
    Path dir;

    @Test
    void theLauncherExecsTheJvmWithItsFlagsThenTheOperatorsAndTheBrokerServes() throws Exception {
        try (var broker = RunnableJar.startWithLauncher("listeners = [{ host = \"127.0.0.1\", port = 0 }]",
                Map.of("PEKQUITTO_JAVA_OPTS", "-Xmx300m"))) {
            try (var client = RawClient.connected(broker.port(), RawClient.Connect.of(RawClient.V311, Names.clientId("launched")))) {
                client.send(new byte[] {(byte) 0xE0, 0});  // DISCONNECT
            }
            // exec: the process the test started is the JVM, so signals reach the broker.
            var command = broker.process().info().command().orElse("");
            assertTrue(command.endsWith("/java"), command);
            var arguments = List.of(broker.process().info().arguments().orElseThrow());
            assertTrue(arguments.contains("-XX:+UseSerialGC"), arguments.toString());
            // A full heap ends the process at once, saying so on stderr (FatalErrorIT).
            assertTrue(arguments.containsAll(List.of("-XX:+ExitOnOutOfMemoryError", "-XX:+DisplayVMOutputToStderr")),
                    arguments.toString());
            assertTrue(arguments.indexOf("-Xmx300m") > arguments.indexOf("-Xmx256m"), "the operator's options come last: " + arguments);
            // JDK 17.0.9 brought the flag; the launcher leaves it out on a JVM that does not know it.
            boolean knowsTrim = Runtime.version().feature() > 17 || Runtime.version().update() >= 9;
            assertEquals(knowsTrim, arguments.contains("-XX:TrimNativeHeapInterval=2000"), arguments.toString());
        }
    }

    @Test
    void withoutAJarTheLauncherSaysWhereItLooked() throws Exception {
        var missing = dir.resolve("no-such.jar");
        var builder = new ProcessBuilder(RunnableJar.launcher(), "--version").redirectErrorStream(true)
                .redirectOutput(dir.resolve("out").toFile());
        builder.environment().put("PEKQUITTO_JAR", missing.toString());
        var process = builder.start();

        assertTrue(process.waitFor(30, TimeUnit.SECONDS));
        assertEquals(1, process.exitValue());
        var out = Files.readString(dir.resolve("out"));
        assertTrue(out.startsWith("pekquitto: no broker jar at " + missing), out);
    }
}
