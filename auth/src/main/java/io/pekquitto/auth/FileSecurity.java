package io.pekquitto.auth;

import io.pekquitto.auth.acl.AclAuthorizer;
import io.pekquitto.auth.acl.AclFile;
import io.pekquitto.auth.acl.AclFileException;
import io.pekquitto.auth.password.PasswordFile;
import io.pekquitto.auth.password.PasswordFileAuthenticator;
import io.pekquitto.auth.password.PasswordFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The default {@link Security}: a Mosquitto password file and ACL, read once, at start. */
public final class FileSecurity {
    private FileSecurity() {}

    /**
     * Reads the files.
     *
     * @param passwordFile   users and their password hashes; without one, any username is accepted
     * @param allowAnonymous whether a client without a username (or verified certificate) may connect
     * @param aclFile        an ACL file; with it or {@code aclLines}, what is not granted is refused
     * @param aclLines       ACL lines from the configuration, after the file's
     * @throws IllegalArgumentException naming the file and the line that cannot be read
     */
    public static Security load(Optional<Path> passwordFile, boolean allowAnonymous, Optional<Path> aclFile,
                                List<String> aclLines) {
        try {
            var authenticator = new PasswordFileAuthenticator(passwordFile.map(PasswordFile::read), allowAnonymous);
            if (aclFile.isEmpty() && aclLines.isEmpty()) return new Security(authenticator, Authorizer.ALLOW_ALL);
            var fromFile = aclFile.map(AclFile::read);
            var configured = AclFile.parse(aclLines, "auth.acl");  // after the file's rules
            var acl = fromFile.map(rules -> rules.with(configured)).orElse(configured);
            return new Security(authenticator, new AclAuthorizer(acl));
        } catch (PasswordFileException | AclFileException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }
}
