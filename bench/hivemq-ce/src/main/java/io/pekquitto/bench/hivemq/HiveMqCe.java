package io.pekquitto.bench.hivemq;

import com.hivemq.embedded.EmbeddedExtension;
import com.hivemq.embedded.EmbeddedHiveMQ;
import com.hivemq.extension.sdk.api.ExtensionMain;
import com.hivemq.extension.sdk.api.auth.SimpleAuthenticator;
import com.hivemq.extension.sdk.api.parameter.ExtensionStartInput;
import com.hivemq.extension.sdk.api.parameter.ExtensionStartOutput;
import com.hivemq.extension.sdk.api.parameter.ExtensionStopInput;
import com.hivemq.extension.sdk.api.parameter.ExtensionStopOutput;
import com.hivemq.extension.sdk.api.services.Services;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * HiveMQ Community Edition, embedded, for bench/run-compare.sh's {@code hivemq} column: one TCP listener on
 * 127.0.0.1:PORT, nothing kept on disk (in-memory persistence, as Mosquitto and pekquitto run without -p),
 * 1,000 queued messages per client (Mosquitto's max_queued_messages in the same run), and every client allowed,
 * what the allow-all extension of HiveMQ's own distribution does.
 *
 *   java -cp 'target/classes:target/lib/*' io.pekquitto.bench.hivemq.HiveMqCe PORT WORK_DIR
 */
public final class HiveMqCe {
    private HiveMqCe() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: HiveMqCe PORT WORK_DIR");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        var work = Path.of(args[1]);
        var config = Files.createDirectories(work.resolve("conf"));
        Files.writeString(config.resolve("config.xml"), """
                <?xml version="1.0"?>
                <hivemq>
                    <listeners>
                        <tcp-listener>
                            <port>%d</port>
                            <bind-address>127.0.0.1</bind-address>
                        </tcp-listener>
                    </listeners>
                    <persistence>
                        <mode>in-memory</mode>
                    </persistence>
                    <mqtt>
                        <queued-messages>
                            <max-queue-size>1000</max-queue-size>
                            <strategy>discard</strategy>
                        </queued-messages>
                    </mqtt>
                    <anonymous-usage-statistics>
                        <enabled>false</enabled>
                    </anonymous-usage-statistics>
                </hivemq>
                """.formatted(port));
        var allowAll = EmbeddedExtension.builder()
                .withId("allow-all").withName("allow all").withVersion("1").withPriority(0).withStartPriority(1000)
                .withExtensionMain(new AllowAll())
                .build();
        var hivemq = EmbeddedHiveMQ.builder()
                .withConfigurationFolder(config)
                .withDataFolder(Files.createDirectories(work.resolve("data")))
                .withExtensionsFolder(Files.createDirectories(work.resolve("extensions")))
                .withEmbeddedExtension(allowAll)
                .build();
        hivemq.start().join();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> hivemq.stop().join()));
        Thread.currentThread().join();
    }

    /** Every client may connect, publish and subscribe: HiveMQ refuses all without an authenticator. */
    private static final class AllowAll implements ExtensionMain {
        @Override
        public void extensionStart(ExtensionStartInput input, ExtensionStartOutput output) {
            Services.securityRegistry().setAuthenticatorProvider(
                    provider -> (SimpleAuthenticator) (connect, outcome) -> outcome.authenticateSuccessfully());
        }

        @Override
        public void extensionStop(ExtensionStopInput input, ExtensionStopOutput output) {}
    }
}
