package io.pekquitto.auth.password;

import io.pekquitto.auth.Authentication;
import io.pekquitto.auth.Authentication.Refusal;
import io.pekquitto.auth.Authenticator;
import io.pekquitto.auth.Credentials;
import java.security.SecureRandom;
import java.util.Optional;

/**
 * The default {@link Authenticator}, as Mosquitto 2.0 decides: a client with a verified certificate on
 * a {@code cert-cn-as-username} listener and no username is its certificate's CN; one with a username
 * must have that user's password when there is a password file; one with neither is anonymous, allowed
 * only with {@code allow-anonymous}. Safe from any thread: the file is only read.
 */
public final class PasswordFileAuthenticator implements Authenticator {
    /**
     * Checked for an unknown user too, so that a wrong name takes as long as a wrong password. Made at the
     * first check of any user (known or not, so the wait it adds once says nothing about the name): a broker
     * without a password file loads neither Bouncy Castle's PBKDF2 nor a SecureRandom for it.
     */
    private static final class Nobody {
        static final PasswordHash HASH = PasswordHash.create("nobody", new SecureRandom());
    }

    private final Optional<PasswordFile> passwords;
    private final boolean allowAnonymous;

    public PasswordFileAuthenticator(Optional<PasswordFile> passwords, boolean allowAnonymous) {
        this.passwords = passwords;
        this.allowAnonymous = allowAnonymous;
    }

    @Override
    public Authentication authenticate(Credentials credentials) {
        if (credentials.username().isEmpty()) {
            if (credentials.certificateCommonName().isPresent()) {
                return Authentication.allowed(credentials.certificateCommonName());  // the handshake verified it
            }
            return allowAnonymous ? Authentication.allowed(Optional.empty())
                    : Authentication.refused(Refusal.NOT_AUTHORIZED, "anonymous clients are not allowed");
        }
        var user = credentials.username().get();
        if (passwords.isEmpty()) return Authentication.allowed(credentials.username());
        var hash = passwords.get().hashOf(user);
        var password = credentials.password().orElse(new byte[0]);
        boolean matches = hash.orElse(Nobody.HASH).matches(password);
        if (hash.isEmpty()) return Authentication.refused(Refusal.BAD_USERNAME_OR_PASSWORD, "unknown user " + user);
        if (credentials.password().isEmpty()) {
            return Authentication.refused(Refusal.BAD_USERNAME_OR_PASSWORD, "no password for user " + user);
        }
        return matches ? Authentication.allowed(credentials.username())
                : Authentication.refused(Refusal.BAD_USERNAME_OR_PASSWORD, "wrong password for user " + user);
    }
}
