package io.pekquitto.shards.listener;

/**
 * The bytes a connection began with are not a valid PROXY protocol header: the connection is closed.
 * Stackless, as the codec's exception: a client can make the broker throw it on every connect.
 */
public final class ProxyHeaderException extends Exception {
    public ProxyHeaderException(String message) {
        super(message, null, false, false);
    }
}
