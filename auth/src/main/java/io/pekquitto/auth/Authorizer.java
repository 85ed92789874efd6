package io.pekquitto.auth;

/**
 * Decides what an authenticated client may publish and subscribe to. Called on the shard thread of the
 * connection, from any of the shards at once: an implementation must be thread-safe and must not block.
 * {@code $SYS} publishing is refused by the broker before an authorizer is asked.
 */
public interface Authorizer {

    /** Everything is allowed: the broker with no ACLs. */
    Authorizer ALLOW_ALL = new Authorizer() {
        @Override
        public boolean canPublish(ClientIdentity client, String topic) {
            return true;
        }

        @Override
        public boolean canSubscribe(ClientIdentity client, String filter) {
            return true;
        }

        /** One for every client: a connection without ACLs holds no object of its own for them. */
        private final ClientAuthorizer everything = new ClientAuthorizer() {
            @Override
            public boolean canPublish(String topic) {
                return true;
            }

            @Override
            public boolean canSubscribe(String filter) {
                return true;
            }
        };

        @Override
        public ClientAuthorizer forClient(ClientIdentity client) {
            return everything;
        }
    };

    /** Whether {@code client} may publish to {@code topic} (a valid topic name, no wildcards); wills too. */
    boolean canPublish(ClientIdentity client, String topic);

    /**
     * Whether {@code client} may subscribe to {@code filter} (a valid topic filter, without a
     * {@code $share/GROUP/} prefix): granted only if every topic the filter can match is readable.
     */
    boolean canSubscribe(ClientIdentity client, String filter);

    /**
     * The decisions for {@code client}, asked for once per connection; an implementation may resolve
     * what applies to the client here rather than on every PUBLISH.
     */
    default ClientAuthorizer forClient(ClientIdentity client) {
        return new ClientAuthorizer() {
            @Override
            public boolean canPublish(String topic) {
                return Authorizer.this.canPublish(client, topic);
            }

            @Override
            public boolean canSubscribe(String filter) {
                return Authorizer.this.canSubscribe(client, filter);
            }
        };
    }
}
