package io.pekquitto.cluster.mesh;

/** Bytes that are not a mesh message this node can read: cut short, of an unknown type, or malformed. */
public final class MeshFormatException extends IllegalArgumentException {
    public MeshFormatException(String message) {
        super(message);
    }

    public MeshFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
