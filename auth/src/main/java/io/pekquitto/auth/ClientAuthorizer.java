package io.pekquitto.auth;

/**
 * An {@link Authorizer}'s decisions for one connected client, resolved once when it connects: a
 * connection asks this for every PUBLISH and SUBSCRIBE, so nothing about the client is looked up again.
 */
public interface ClientAuthorizer {

    /** Whether the client may publish to {@code topic}. */
    boolean canPublish(String topic);

    /** Whether the client may subscribe to {@code filter} (without a {@code $share/GROUP/} prefix). */
    boolean canSubscribe(String filter);
}
