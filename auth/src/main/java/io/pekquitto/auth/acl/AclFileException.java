package io.pekquitto.auth.acl;

/** An ACL cannot be read: the message names the source and the line. */
public final class AclFileException extends RuntimeException {
    public AclFileException(String message) {
        super(message);
    }

    public AclFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
