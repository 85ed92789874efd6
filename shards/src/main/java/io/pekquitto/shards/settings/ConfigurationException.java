package io.pekquitto.shards.settings;

/**
 * A configuration the broker cannot start with: an unknown key, a value of the wrong type or out of
 * range, an unreadable file, or a bad command line. The message is for the operator: it names the
 * key's full path ({@code pekquitto.max-qos}) or the file, and where the value came from.
 */
public final class ConfigurationException extends RuntimeException {

    public ConfigurationException(String message) {
        super(message);
    }

    public ConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
