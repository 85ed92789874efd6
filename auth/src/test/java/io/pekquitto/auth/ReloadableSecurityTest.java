package io.pekquitto.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.auth.acl.AclAuthorizer;
import io.pekquitto.auth.acl.AclFile;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The broker's view of a reloadable security: always the current pair, connected clients included. */
class ReloadableSecurityTest {
    private static final InetSocketAddress ADDRESS = new InetSocketAddress("127.0.0.1", 50000);
    private static final ClientIdentity ALICE = new ClientIdentity("c1", Optional.of("alice"), ADDRESS);

    private static Security acl(String... lines) {
        return new Security(Authenticator.ANYONE, new AclAuthorizer(AclFile.parse(List.of(lines), "test")));
    }

    private static Security onlyUser(String user) {
        Authenticator authenticator = credentials -> credentials.username().equals(Optional.of(user))
                ? Authentication.allowed(credentials.username())
                : Authentication.refused(Authentication.Refusal.BAD_USERNAME_OR_PASSWORD, "not " + user);
        return new Security(authenticator, Authorizer.ALLOW_ALL);
    }

    private static Credentials credentials(String user) {
        return new Credentials("c-" + user, Optional.of(user), Optional.empty(), ADDRESS, Optional.empty());
    }

    @Test
    void aConnectAfterAReplaceIsJudgedByTheNewAuthenticator() {
        var reloadable = new ReloadableSecurity(onlyUser("alice"));
        var broker = reloadable.security();
        assertInstanceOf(Authentication.Allowed.class, broker.authenticator().authenticate(credentials("alice")));

        reloadable.replace(onlyUser("bob"));

        assertInstanceOf(Authentication.Refused.class, broker.authenticator().authenticate(credentials("alice")));
        assertInstanceOf(Authentication.Allowed.class, broker.authenticator().authenticate(credentials("bob")));
    }

    @Test
    void aConnectedClientsNextDecisionFollowsTheNewAcl() {
        var reloadable = new ReloadableSecurity(acl("user alice", "topic readwrite home/#"));
        var decisions = reloadable.security().authorizer().forClient(ALICE);
        assertTrue(decisions.canPublish("home/kitchen"));
        assertFalse(decisions.canSubscribe("office/#"));

        reloadable.replace(acl("user alice", "topic readwrite office/#"));

        assertFalse(decisions.canPublish("home/kitchen"));
        assertTrue(decisions.canSubscribe("office/#"));
    }

    @Test
    void aClientsDecisionsAreResolvedOncePerReplaceNotPerDecision() {
        var resolved = new AtomicInteger();
        // Only forClient may be asked: a connection's decisions go through what it resolved.
        Authorizer counting = new Authorizer() {
            @Override
            public boolean canPublish(ClientIdentity client, String topic) {
                throw new AssertionError("canPublish(client, topic) asked instead of the client's decisions");
            }

            @Override
            public boolean canSubscribe(ClientIdentity client, String filter) {
                throw new AssertionError("canSubscribe(client, filter) asked instead of the client's decisions");
            }

            @Override
            public ClientAuthorizer forClient(ClientIdentity client) {
                resolved.incrementAndGet();
                return Authorizer.ALLOW_ALL.forClient(client);
            }
        };
        var reloadable = new ReloadableSecurity(new Security(Authenticator.ANYONE, counting));
        var decisions = reloadable.security().authorizer().forClient(ALICE);
        for (int i = 0; i < 3; i++) decisions.canPublish("a/" + i);
        assertEquals(1, resolved.get());

        reloadable.replace(new Security(Authenticator.ANYONE, counting));
        for (int i = 0; i < 3; i++) decisions.canPublish("a/" + i);

        assertEquals(2, resolved.get());
    }

    @Test
    void theBrokersPairStaysTheSameObjectAcrossReplaces() {
        var reloadable = new ReloadableSecurity(Security.OPEN);
        var broker = reloadable.security();
        var next = acl("topic read #");

        reloadable.replace(next);

        assertSame(broker, reloadable.security());
        assertSame(next, reloadable.current());
    }
}
