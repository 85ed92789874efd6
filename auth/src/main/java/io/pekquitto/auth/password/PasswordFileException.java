package io.pekquitto.auth.password;

/** A password file cannot be read: the message names the file and the line, never a hash or a password. */
public final class PasswordFileException extends RuntimeException {
    public PasswordFileException(String message) {
        super(message);
    }

    public PasswordFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
