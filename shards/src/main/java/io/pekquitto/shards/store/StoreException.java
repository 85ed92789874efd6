package io.pekquitto.shards.store;

/** The store cannot be opened, read or written; the message names the path and the cause. */
public final class StoreException extends IllegalStateException {
    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
