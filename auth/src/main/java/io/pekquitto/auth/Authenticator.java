package io.pekquitto.auth;

/**
 * Decides whether a CONNECT may go on, and as which user. The broker calls it once per CONNECT, on the
 * shard thread of the connection, from any of the shards at once: an implementation must be
 * thread-safe and must not block (a lookup in memory, a hash check; not a network call).
 */
@FunctionalInterface
public interface Authenticator {

    /** Everyone may connect, as the username they send: the broker with no password file. */
    Authenticator ANYONE = credentials -> Authentication.allowed(credentials.username());

    Authentication authenticate(Credentials credentials);
}
