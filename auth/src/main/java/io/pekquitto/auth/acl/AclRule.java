package io.pekquitto.auth.acl;

import java.util.Optional;

/**
 * One {@code topic} or {@code pattern} line of an ACL.
 *
 * @param access  what the line grants, or {@link Access#DENY}
 * @param filter  the topic filter, with {@code %c} and {@code %u} still in it for a pattern
 * @param pattern whether {@code %c} and {@code %u} are to be replaced by the client's id and username
 */
public record AclRule(Access access, String filter, boolean pattern) {

    public enum Access {
        READ, WRITE, READWRITE, DENY;

        boolean reads() {
            return this == READ || this == READWRITE;
        }

        boolean writes() {
            return this == WRITE || this == READWRITE;
        }
    }

    /**
     * The rule's filter for this client; empty when a pattern cannot apply: it names the username of an
     * anonymous client, or the value to put in holds '+', '#' or '/', which would widen the filter (the
     * wildcard injection of CVE-2017-7650).
     */
    Optional<String> filterFor(String clientId, Optional<String> username) {
        if (!pattern) return Optional.of(filter);
        var result = filter;
        if (filter.contains("%c")) {
            if (!safe(clientId)) return Optional.empty();
            result = result.replace("%c", clientId);
        }
        if (filter.contains("%u")) {
            if (username.isEmpty() || !safe(username.get())) return Optional.empty();
            result = result.replace("%u", username.get());
        }
        return Optional.of(result);
    }

    private static boolean safe(String value) {
        return value.indexOf('+') < 0 && value.indexOf('#') < 0 && value.indexOf('/') < 0;
    }
}
