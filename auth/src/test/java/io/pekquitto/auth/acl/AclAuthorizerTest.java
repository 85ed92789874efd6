package io.pekquitto.auth.acl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.auth.ClientIdentity;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Mosquitto's ACL format read, and the decisions taken on it, rule by rule. */
class AclAuthorizerTest {
    private static final InetSocketAddress ADDRESS = new InetSocketAddress("127.0.0.1", 50000);
    private static final AclAuthorizer ACL = new AclAuthorizer(AclFile.parse(List.of(
            "# anonymous",
            "topic read public/#",
            "  ",
            "user alice",
            "topic home/alice/#",
            "topic read home/+/status",
            "topic readwrite vault/#",
            "topic deny vault/secret",
            "user bob smith",
            "topic write home/bob/#",
            "pattern readwrite devices/%c/#",
            "pattern read inbox/%u/#"), "test"));

    private static ClientIdentity user(String name) {
        return new ClientIdentity("id-" + name.replace(' ', '-'), Optional.of(name), ADDRESS);
    }

    private static ClientIdentity anonymous(String clientId) {
        return new ClientIdentity(clientId, Optional.empty(), ADDRESS);
    }

    @Test
    void topicLinesBelongToTheUserAboveThemAndNoAccessWordMeansReadwrite() {
        assertTrue(ACL.canPublish(user("alice"), "home/alice/lamp"));
        assertTrue(ACL.canSubscribe(user("alice"), "home/alice/#"));
        assertFalse(ACL.canPublish(user("alice"), "home/bob/lamp"), "default deny");
        assertTrue(ACL.canPublish(user("bob smith"), "home/bob/lamp"), "a username may hold spaces");
        assertFalse(ACL.canSubscribe(user("bob smith"), "home/bob/lamp"), "write-only");
        assertFalse(ACL.canPublish(user("alice"), "home/bob/status"), "read-only");
        assertFalse(ACL.canPublish(user("carol"), "public/news"), "a user with no lines has nothing");
        assertFalse(ACL.canSubscribe(user("carol"), "public/news"), "the anonymous lines are not for users");
    }

    @Test
    void linesBeforeTheFirstUserAreForAnonymousClients() {
        assertTrue(ACL.canSubscribe(anonymous("x"), "public/news"));
        assertFalse(ACL.canPublish(anonymous("x"), "public/news"));
        assertFalse(ACL.canSubscribe(anonymous("x"), "home/alice/#"));
    }

    @Test
    void denyWins() {
        assertTrue(ACL.canPublish(user("alice"), "vault/public"));
        assertFalse(ACL.canPublish(user("alice"), "vault/secret"));
        assertTrue(ACL.canSubscribe(user("alice"), "vault/public"));
        assertFalse(ACL.canSubscribe(user("alice"), "vault/#"), "would include vault/secret");
        assertFalse(ACL.canSubscribe(user("alice"), "vault/+"));
        assertFalse(ACL.canSubscribe(user("alice"), "+/secret"));
    }

    @Test
    void subscriptionsAreGrantedOnlyForFiltersAGrantCovers() {
        assertTrue(ACL.canSubscribe(user("alice"), "home/alice/lamp"));
        assertTrue(ACL.canSubscribe(user("alice"), "home/alice/+/x"));
        assertTrue(ACL.canSubscribe(user("alice"), "home/bob/status"));
        assertTrue(ACL.canSubscribe(user("alice"), "home/+/status"));
        assertFalse(ACL.canSubscribe(user("alice"), "home/+"), "home/+/status does not admit home/+");
        assertFalse(ACL.canSubscribe(user("alice"), "home/#"));
        assertFalse(ACL.canSubscribe(user("alice"), "+/alice/lamp"), "home/alice/# does not admit +/alice/lamp");
        assertFalse(ACL.canSubscribe(user("alice"), "#"));
    }

    @Test
    void patternsFillInTheClientIdAndUsername() {
        assertTrue(ACL.canPublish(anonymous("sensor-7"), "devices/sensor-7/temperature"));
        assertFalse(ACL.canPublish(anonymous("sensor-7"), "devices/sensor-8/temperature"));
        assertTrue(ACL.canSubscribe(user("alice"), "inbox/alice/#"));
        assertFalse(ACL.canSubscribe(user("alice"), "inbox/bob/#"));
        assertFalse(ACL.canSubscribe(anonymous("x"), "inbox/+/#"), "%u never matches an anonymous client");
    }

    @Test
    void aWildcardOrSlashInAClientIdOrUsernameNeverWidensAPattern() {
        for (var clientId : List.of("+", "#", "a/b", "sensor+")) {
            assertFalse(ACL.canSubscribe(anonymous(clientId), "devices/+/#"), clientId);
            assertFalse(ACL.canSubscribe(anonymous(clientId), "devices/#"), clientId);
            assertFalse(ACL.canPublish(anonymous(clientId), "devices/a/b/x"), clientId);
        }
        assertFalse(ACL.canSubscribe(new ClientIdentity("c", Optional.of("#"), ADDRESS), "inbox/#"));
        assertFalse(ACL.canSubscribe(new ClientIdentity("c", Optional.of("+"), ADDRESS), "inbox/+/x"));
    }

    @Test
    void aClientsRulesResolvedOnceDecideAsTheAuthorizerDoes() {
        var alice = ACL.forClient(user("alice"));
        var device = ACL.forClient(anonymous("sensor-7"));
        var attacker = ACL.forClient(anonymous("+"));
        for (var topic : List.of("home/alice/lamp", "home/bob/lamp", "vault/secret", "devices/sensor-7/t", "public/x")) {
            assertEquals(ACL.canPublish(user("alice"), topic), alice.canPublish(topic), topic);
            assertEquals(ACL.canPublish(anonymous("sensor-7"), topic), device.canPublish(topic), topic);
        }
        for (var filter : List.of("home/alice/#", "home/#", "vault/#", "inbox/alice/#", "devices/+/#")) {
            assertEquals(ACL.canSubscribe(user("alice"), filter), alice.canSubscribe(filter), filter);
            assertFalse(attacker.canSubscribe(filter), filter);
        }
    }

    @Test
    void rulesFromTheConfigurationFollowTheFilesRules() {
        var file = AclFile.parse(List.of("user alice", "topic read a/#"), "file");
        var config = AclFile.parse(List.of("topic read anonymous/#", "user alice", "topic deny a/secret"), "config");
        var merged = new AclAuthorizer(file.with(config));
        assertTrue(merged.canSubscribe(user("alice"), "a/open"));
        assertFalse(merged.canSubscribe(user("alice"), "a/#"));
        assertTrue(merged.canSubscribe(anonymous("x"), "anonymous/x"));
    }

    @Test
    void linesThatCannotBeReadAreNamed() {
        assertEquals("acl f, line 2: unknown keyword `topics` (expected user, topic or pattern)",
                assertThrows(AclFileException.class, () -> AclFile.parse(List.of("user a", "topics read x"), "acl f")).getMessage());
        assertEquals("f, line 1: `a/#/b` is not a valid topic filter",
                assertThrows(AclFileException.class, () -> AclFile.parse(List.of("topic read a/#/b"), "f")).getMessage());
        assertEquals("f, line 1: `read` needs a topic filter after it",
                assertThrows(AclFileException.class, () -> AclFile.parse(List.of("topic read"), "f")).getMessage());
        assertEquals("f, line 3: `user` needs a username",
                assertThrows(AclFileException.class, () -> AclFile.parse(List.of("#", "", "user"), "f")).getMessage());
    }
}
