package io.pekquitto.auth;

import java.util.Optional;

/** An {@link Authenticator}'s decision on one CONNECT. */
public sealed interface Authentication {

    /** The client may connect, as {@code username} (empty: anonymous) for the ACLs. */
    record Allowed(Optional<String> username) implements Authentication {}

    /** The client may not connect; {@code why} is for the log, never for the client. */
    record Refused(Refusal refusal, String why) implements Authentication {}

    /** Why a CONNECT is refused, as CONNACK says it. */
    enum Refusal {
        /** Unknown user or wrong password: 0x86 in MQTT 5, 4 in 3.1.1. */
        BAD_USERNAME_OR_PASSWORD,
        /** Credentials are fine but this client may not connect (anonymous when that is off): 0x87, 5. */
        NOT_AUTHORIZED
    }

    static Authentication allowed(Optional<String> username) {
        return new Allowed(username);
    }

    static Authentication refused(Refusal refusal, String why) {
        return new Refused(refusal, why);
    }
}
