package io.pekquitto.shards;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The shape of the shards module: its packages form no cycle (the connection talks to its shard
 * through {@code ShardRequest}, never through {@code Shard}), the actors' packages (broker, shard,
 * listener.actor) are on top of the rest, and the MQTT rules the actors own are plain Java, testable
 * without actors or sockets (docs/architecture.md, Modules).
 */
class ArchitectureTest {
    /** Imported once for all the rules: each import reads every class of the module again. */
    private static final JavaClasses classes = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.pekquitto.shards");

    @Test
    void thePackagesOfShardsAreFreeOfCycles() {
        // Each package is a slice: broker -> listener.actor and shard, shard -> listener.actor, never back.
        slices().matching("io.pekquitto.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void everyClassIsInAPackageOfItsConcern() {
        // The broker, the listeners and the shard each have theirs; what a root package held ran up and down.
        noClasses().should().resideInAPackage("io.pekquitto.shards").check(classes);
    }

    @Test
    void onlyTheActorsKnowTheActors() {
        // The connection talks to its shard through ShardRequest, a listener through ListenerRequest, a node through
        // Leaving: declared below the shard, so that the rules, the connection and the transport never know its class.
        noClasses().that().resideOutsideOfPackages("io.pekquitto.shards.broker", "io.pekquitto.shards.shard",
                        "io.pekquitto.shards.listener.actor")
                .should().dependOnClassesThat().resideInAnyPackage("io.pekquitto.shards.broker", "io.pekquitto.shards.shard",
                        "io.pekquitto.shards.listener.actor")
                .check(classes);
    }

    @Test
    void sessionRoutesMeshSettingsAndMemoryRulesDoNotUsePekko() {
        noClasses().that().resideInAnyPackage("io.pekquitto.shards.session..", "io.pekquitto.shards.routes..",
                        "io.pekquitto.shards.mesh..", "io.pekquitto.shards.settings..", "io.pekquitto.shards.memory..")
                .should().dependOnClassesThat().resideInAPackage("org.apache.pekko..")
                .check(classes);
    }

    @Test
    void noClassUsesPekkoRemoteOrCluster() {
        // Only the cluster module may (the enforcer's no-pekko-cluster rule keeps them off this module's
        // class path too): a broker without a cluster loads none of their classes.
        noClasses().that().resideInAPackage("io.pekquitto.shards..")
                .should().dependOnClassesThat().resideInAnyPackage("org.apache.pekko.remote..", "org.apache.pekko.cluster..")
                .check(classes);
    }

    @Test
    void onlyTheTransportKnowsNetty() {
        // The rules see bytes through the Transport seam; which library moves them is the transport's business.
        // Its package holds every listener kind's pipeline, a WebSocket's HTTP upgrade (transport.websocket) too.
        // A listener's TLS (tcp: ListenerTls, TlsFiles, TlsImplementation) is the Netty SslContext its files make,
        // whose SslHandler the transport puts in each pipeline.
        noClasses().that().resideOutsideOfPackages("io.pekquitto.shards.transport..", "io.pekquitto.shards.tcp..")
                .should().dependOnClassesThat().resideInAPackage("io.netty..")
                .check(classes);
    }

    @Test
    void theListenerRulesDoNotUsePekko() {
        // Shared by every kind of listener (TCP, TLS, WebSocket): plain Java, whatever carries the bytes. The
        // listener's actor (listener.actor), which binds and accepts, is apart: the connection and the transport use
        // these rules, and the actor uses them.
        noClasses().that().resideInAPackage("io.pekquitto.shards.listener")
                .should().dependOnClassesThat().resideInAPackage("org.apache.pekko..")
                .check(classes);
    }

    @Test
    void theConnectionRulesDoNotUsePekko() {
        // Only the actor, its message protocol and the socket side (transport, stage, reader, writer) may.
        noClasses().that().haveNameMatching("io\\.pekquitto\\.shards\\.connection\\.(KeepAlive|InboundPublish|SubscribeChecks"
                        + "|DeliveryWindow|LastWill|ConnectNegotiation|InboundTopicAliases|OutboundTopicAliases)(\\$.*)?")
                .should().dependOnClassesThat().resideInAPackage("org.apache.pekko..")
                .check(classes);
    }

    @Test
    void theInProcessClientRulesDoNotUsePekko() {
        // Only the actor (InProcessClient), its part ClientSubscriptions and ReceivedMessage, which acknowledges to it, may.
        noClasses().that().haveNameMatching("io\\.pekquitto\\.shards\\.client\\.(PublishChecks|ConnectChecks|SubscriberWindow"
                        + "|MessageProperties|ConnectOptions)(\\$.*)?")
                .should().dependOnClassesThat().resideInAPackage("org.apache.pekko..")
                .check(classes);
    }

    @Test
    void theRuleClassesNeverReadTheSystemClock() {
        // Time is passed in (now) or comes from the clock the shard was given, which tests control. The
        // shard's thread itself (dispatch) times its spin: machinery, not a rule.
        noClasses().that().resideInAPackage("io.pekquitto.shards..").and().doNotHaveSimpleName("Broker")
                .and().resideOutsideOfPackage("io.pekquitto.shards.dispatch")
                .should().callMethod(System.class, "nanoTime")
                .orShould().callMethod(System.class, "currentTimeMillis")
                .check(classes);
    }

    @Test
    void everyClassIsFinalOrAbstract() {
        classes().that().resideInAPackage("io.pekquitto.shards..").and().areNotInterfaces()
                .and().areNotEnums().and().areNotRecords().and().areTopLevelClasses()
                .should().haveModifier(com.tngtech.archunit.core.domain.JavaModifier.FINAL)
                .orShould().haveModifier(com.tngtech.archunit.core.domain.JavaModifier.ABSTRACT)
                .check(classes);
    }

    @Test
    void noMainSourceFileIsLongerThan450Lines() throws IOException {
        var root = Path.of("").toAbsolutePath().getParent();  // the reactor: surefire runs in shards/
        try (Stream<Path> files = Files.walk(root)) {
            var tooLong = files.filter(path -> path.toString().endsWith(".java"))
                    .filter(path -> path.toString().contains("/src/main/"))
                    .filter(path -> lines(path) > 450)
                    .map(path -> root.relativize(path) + " (" + lines(path) + " lines)")
                    .toList();
            assertTrue(tooLong.isEmpty(), "one concern per file: " + tooLong);
        }
    }

    private static long lines(Path path) {
        try (var lines = Files.lines(path)) {
            return lines.count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
