package io.pekquitto.shards.settings;

import io.pekquitto.auth.FileSecurity;
import io.pekquitto.auth.Security;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Who may connect and what they may do, as configured ({@code pekquitto.auth}): the files are read when
 * the broker starts, by {@link #readSecurity()}.
 *
 * @param passwordFile   a password file as {@code mosquitto_passwd} writes it ({@code auth.password-file})
 * @param allowAnonymous whether a client without a username may connect ({@code auth.allow-anonymous};
 *                       {@code auto}: only while no password file is configured)
 * @param aclFile        an ACL file as Mosquitto reads it ({@code auth.acl-file})
 * @param acl            ACL lines written in the configuration ({@code auth.acl}), read after the file's
 */
public record AuthSettings(Optional<Path> passwordFile, boolean allowAnonymous, Optional<Path> aclFile, List<String> acl) {
    public AuthSettings {
        Objects.requireNonNull(passwordFile, "passwordFile");
        Objects.requireNonNull(aclFile, "aclFile");
        acl = List.copyOf(acl);
    }

    /**
     * The authenticator and authorizer these settings describe, the files read now.
     *
     * @throws IllegalArgumentException if a file is missing or a line cannot be read (the message names
     *                                  the file and the line, never a password or a hash)
     */
    public Security readSecurity() {
        return FileSecurity.load(passwordFile, allowAnonymous, aclFile, acl);
    }

    /** Whether any ACL is configured: without one, every client may publish and subscribe anywhere. */
    public boolean hasAcl() {
        return aclFile.isPresent() || !acl.isEmpty();
    }
}
