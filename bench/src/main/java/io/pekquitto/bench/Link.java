package io.pekquitto.bench;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The byte stream MQTT runs on, below a {@link Connection}: the socket itself, TLS over it, or
 * WebSocket frames over either. Non-blocking: every call does what the socket allows and returns.
 * The defaults are those of a link with no handshake that holds nothing back (the bare socket).
 */
interface Link {

    /** Moves the link's own handshake on; true once it is over (then the Connection sends CONNECT). */
    default boolean handshake() throws IOException {
        return true;
    }

    default boolean handshaken() {
        return true;
    }

    /** Reads into {@code dst} (write mode) what has arrived; -1 at the end of the stream. */
    int read(ByteBuffer dst) throws IOException;

    /** Whether bytes wait that did not fit the last read's buffer: read again. */
    default boolean hasBufferedInput() {
        return false;
    }

    /** Writes as much of {@code src} (read mode, advanced) as the socket takes. */
    void write(ByteBuffer src) throws IOException;

    /** Writes what an earlier write left; true when nothing is left. */
    default boolean flushPending() throws IOException {
        return true;
    }

    default boolean hasPendingOutput() {
        return false;
    }
}
