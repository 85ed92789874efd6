package io.pekquitto.shards;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The MQTT rules the actors own are plain Java, testable without actors or sockets (STYLE.md 13). */
class ArchitectureTest {
    private final com.tngtech.archunit.core.domain.JavaClasses classes = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.pekquitto.shards");

    @Test
    void sessionRulesDoNotUsePekko() {
        noClasses().that().resideInAPackage("io.pekquitto.shards.session..")
                .should().dependOnClassesThat().resideInAPackage("org.apache.pekko..")
                .check(classes);
    }

    @Test
    void meshRulesDoNotUsePekko() {
        noClasses().that().resideInAPackage("io.pekquitto.shards.mesh..")
                .should().dependOnClassesThat().resideInAPackage("org.apache.pekko..")
                .check(classes);
    }

    @Test
    void connectionRulesDoNotUsePekko() {
        noClasses().that().haveSimpleName("ConnectNegotiation").or().haveSimpleName("InboundTopicAliases")
                .should().dependOnClassesThat().resideInAPackage("org.apache.pekko..")
                .check(classes);
    }
}
