package io.pekquitto.shards.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.auth.Authorizer;
import io.pekquitto.auth.acl.AclAuthorizer;
import io.pekquitto.auth.acl.AclFile;
import io.pekquitto.protocol.Binary;
import io.pekquitto.protocol.QoS;
import io.pekquitto.protocol.ReasonCode;
import io.pekquitto.shards.settings.BrokerSettings;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConnectChecksTest {
    private static final BrokerSettings DEFAULTS = BrokerSettings.defaults();
    private static final Authorizer ACL = new AclAuthorizer(AclFile.parse(
            List.of("user alice", "topic readwrite home/alice/#"), "test"));

    private static ConnectChecks.Accepted accepted(ConnectOptions options) {
        return assertInstanceOf(ConnectChecks.Accepted.class, ConnectChecks.check(options, ACL, DEFAULTS, 0, false));
    }

    private static ReasonCode refusal(ConnectOptions options) {
        return assertInstanceOf(ConnectChecks.Refused.class, ConnectChecks.check(options, ACL, DEFAULTS, 0, false)).reason();
    }

    @Test
    void anEmptyClientIdIsAssignedOne() {  // [MQTT-3.1.3-6]
        var first = accepted(ConnectOptions.clientId("")).clientId();
        assertTrue(first.startsWith("pekquitto-"), first);
        assertFalse(first.equals(accepted(ConnectOptions.clientId("")).clientId()), "each its own");
    }

    @Test
    void aClientIdIsWellFormedUtf8() {  // [MQTT-1.5.4-1]
        assertEquals(ReasonCode.CLIENT_IDENTIFIER_NOT_VALID, refusal(ConnectOptions.clientId("a\uD800")));
        assertEquals(ReasonCode.CLIENT_IDENTIFIER_NOT_VALID, refusal(ConnectOptions.clientId("x".repeat(65_536))));
    }

    @Test
    void theSessionExpiryIsCappedByMaxSessionExpiry() {
        var settings = BrokerSettings.parse("max-session-expiry = 1h");
        var options = ConnectOptions.clientId("c").withSessionExpiryInterval(86_400);
        var terms = assertInstanceOf(ConnectChecks.Accepted.class, ConnectChecks.check(options, ACL, settings, 0, false));
        assertEquals(3_600, terms.sessionExpiryInterval());
    }

    @Test
    void whileTheStoreFailsAPersistentSessionIsRefusedAndACleanOneIsNot() {
        var persistent = ConnectOptions.clientId("c").withSessionExpiryInterval(60);
        var refused = assertInstanceOf(ConnectChecks.Refused.class, ConnectChecks.check(persistent, ACL, DEFAULTS, 0, true));
        assertEquals(ReasonCode.QUOTA_EXCEEDED, refused.reason());
        assertInstanceOf(ConnectChecks.Accepted.class, ConnectChecks.check(ConnectOptions.clientId("c"), ACL, DEFAULTS, 0, true));
    }

    @Test
    void withoutAUsernameTheClientIsTrusted() {
        var terms = accepted(ConnectOptions.clientId("c"));
        assertTrue(terms.acl().canPublish("anything/at/all"));
        assertTrue(terms.acl().canSubscribe("#"));
    }

    @Test
    void withAUsernameTheAclsJudgeIt() {
        var terms = accepted(ConnectOptions.clientId("c").withUsername("alice"));
        assertTrue(terms.acl().canPublish("home/alice/lamp"));
        assertFalse(terms.acl().canPublish("home/bob/lamp"));
        assertFalse(terms.acl().canSubscribe("home/#"));
    }

    @Test
    void aWillIsJudgedLikeAPublishWhenTheClientConnects() {
        var bobs = new ConnectOptions.Will("home/bob/status", Binary.utf8("gone"), QoS.AT_LEAST_ONCE, false);
        assertEquals(ReasonCode.NOT_AUTHORIZED, refusal(ConnectOptions.clientId("c").withUsername("alice").withWill(bobs)));
        var sys = new ConnectOptions.Will("$SYS/x", Binary.utf8("gone"), QoS.AT_MOST_ONCE, false);
        assertEquals(ReasonCode.NOT_AUTHORIZED, refusal(ConnectOptions.clientId("c").withWill(sys)));
        var wildcard = new ConnectOptions.Will("a/#", Binary.utf8("gone"), QoS.AT_MOST_ONCE, false);
        assertEquals(ReasonCode.TOPIC_NAME_INVALID, refusal(ConnectOptions.clientId("c").withWill(wildcard)));
        var alices = new ConnectOptions.Will("home/alice/status", Binary.utf8("gone"), QoS.AT_LEAST_ONCE, true);
        accepted(ConnectOptions.clientId("c").withUsername("alice").withWill(alices));
    }

    @Test
    void intervalsOutOfRangeCannotBeBuilt() {
        assertThrows(IllegalArgumentException.class, () -> ConnectOptions.clientId("c").withSessionExpiryInterval(-1));
        assertThrows(IllegalArgumentException.class, () -> MessageProperties.NONE.withMessageExpiryInterval(1L << 32));
        assertThrows(IllegalArgumentException.class,
                () -> new ConnectOptions.Will("a", Binary.EMPTY, QoS.AT_MOST_ONCE, false, MessageProperties.NONE, -5));
    }
}
