package io.pekquitto.cluster;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The cluster's rules are plain Java, testable without actors (docs/architecture.md, Actors and rules):
 * only the actor and the node's handle use Pekko.
 */
class ArchitectureTest {
    /** Imported once for all the rules: each import reads every class of the module again. */
    private static final JavaClasses classes = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.pekquitto.cluster");

    @Test
    void theMemberListAndTheFiguresDoNotUsePekko() {
        noClasses().that().haveNameMatching("io\\.pekquitto\\.cluster\\.(MemberList|ClusterMember|ClusterFigures)(\\$.*)?")
                .should().dependOnClassesThat().resideInAPackage("org.apache.pekko..")
                .check(classes);
    }

    @Test
    void theConfigurationIsMadeWithoutLoadingPekkoCluster() {
        noClasses().that().haveSimpleName("ClusterConfig")
                .should().dependOnClassesThat().resideInAnyPackage("org.apache.pekko.cluster..", "org.apache.pekko.remote..")
                .check(classes);
    }

    @Test
    void theMeshsByteLayoutIsPlainJava() {
        noClasses().that().resideInAPackage("io.pekquitto.cluster.mesh").and().doNotHaveSimpleName("MeshSerializer")
                .should().dependOnClassesThat().resideInAPackage("org.apache.pekko..")
                .check(classes);
    }
}
