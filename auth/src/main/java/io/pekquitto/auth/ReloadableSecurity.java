package io.pekquitto.auth;

import java.util.Objects;

/**
 * A {@link Security} whose authenticator and authorizer can be replaced while the broker runs: what a
 * reload of the password and ACL files swaps in. The broker is started with {@link #security()}, which
 * always asks the current pair; {@link #replace} is one volatile write, so the shard threads that
 * authenticate and authorize never wait on a lock.
 *
 * <p>After a replace, a CONNECT is judged by the new pair; a client already connected stays connected
 * (as authenticated when it connected), and its next PUBLISH and SUBSCRIBE are judged by the new ACL,
 * resolved again for it at its first decision after the replace. What it was granted before (its
 * subscriptions) stays granted.
 */
public final class ReloadableSecurity {
    private volatile Security current;

    /** The pair the broker is started with; the reload's pair reads through to the current one. */
    private final Security security = new Security(this::authenticate, new ReloadingAuthorizer());

    public ReloadableSecurity(Security initial) {
        current = Objects.requireNonNull(initial, "initial");
    }

    /** The {@link Security} to start the broker with: it always decides with the current pair. */
    public Security security() {
        return security;
    }

    /** The pair deciding now. */
    public Security current() {
        return current;
    }

    /** Makes {@code next} decide from now on (CONNECTs from now, and connected clients' next decision). */
    public void replace(Security next) {
        current = Objects.requireNonNull(next, "next");
    }

    private Authentication authenticate(Credentials credentials) {
        return current.authenticator().authenticate(credentials);
    }

    private final class ReloadingAuthorizer implements Authorizer {
        @Override
        public boolean canPublish(ClientIdentity client, String topic) {
            return current.authorizer().canPublish(client, topic);
        }

        @Override
        public boolean canSubscribe(ClientIdentity client, String filter) {
            return current.authorizer().canSubscribe(client, filter);
        }

        @Override
        public ClientAuthorizer forClient(ClientIdentity client) {
            return new ReloadingClientAuthorizer(client, current);
        }
    }

    /**
     * One client's decisions, resolved from the pair current when they were resolved, and resolved again
     * at the first decision after a replace (one volatile read per decision to notice it). A connection
     * uses it from its own actor only, so its two fields need no synchronization.
     */
    private final class ReloadingClientAuthorizer implements ClientAuthorizer {
        private final ClientIdentity client;
        private Security resolvedFrom;
        private ClientAuthorizer decisions;

        ReloadingClientAuthorizer(ClientIdentity client, Security from) {
            this.client = client;
            resolve(from);
        }

        @Override
        public boolean canPublish(String topic) {
            return decisions().canPublish(topic);
        }

        @Override
        public boolean canSubscribe(String filter) {
            return decisions().canSubscribe(filter);
        }

        private ClientAuthorizer decisions() {
            var now = current;
            if (now != resolvedFrom) resolve(now);
            return decisions;
        }

        private void resolve(Security from) {
            decisions = from.authorizer().forClient(client);
            resolvedFrom = from;
        }
    }
}
