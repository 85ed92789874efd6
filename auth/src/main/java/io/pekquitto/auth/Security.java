package io.pekquitto.auth;

/**
 * Who may connect and what they may do: the pair a broker is started with. The file-based
 * implementations are the defaults; an embedder passes its own.
 */
public record Security(Authenticator authenticator, Authorizer authorizer) {

    /** Anyone may connect and do anything (but publish to {@code $SYS}): the broker with no auth configured. */
    public static final Security OPEN = new Security(Authenticator.ANYONE, Authorizer.ALLOW_ALL);
}
