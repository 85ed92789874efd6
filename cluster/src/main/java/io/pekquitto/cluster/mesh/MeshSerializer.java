package io.pekquitto.cluster.mesh;

import java.io.NotSerializableException;
import org.apache.pekko.serialization.SerializerWithStringManifest;

/**
 * Pekko's serializer for what a shard sends a peer shard on another node ({@code Shard.Forward},
 * {@code ForwardAck}, {@code Control}), registered by {@code ClusterConfig}: a thin wrapper of
 * {@link MeshCodec}, which holds the byte layout (docs/cluster.md, The mesh's messages on the wire).
 * A message's times travel as ages on this JVM's {@code System.nanoTime()} ({@link MessageCodec}).
 */
public final class MeshSerializer extends SerializerWithStringManifest {
    /** Ours, outside Pekko's reserved 0..40 and apart from ops' {@code WithoutRemoting.Unused} (1_350_425_001). */
    public static final int IDENTIFIER = 1_350_425_025;

    private final MeshCodec codec = new MeshCodec(System::nanoTime);

    @Override
    public int identifier() {
        return IDENTIFIER;
    }

    @Override
    public String manifest(Object message) {
        return MeshCodec.manifest(message);
    }

    /** @throws IllegalArgumentException for a {@code Handover} carrying a live session: only a portable one leaves its node */
    @Override
    public byte[] toBinary(Object message) {
        return codec.encode(message);
    }

    @Override
    public Object fromBinary(byte[] bytes, String manifest) throws NotSerializableException {
        if (!manifest.equals(MeshCodec.FORWARD) && !manifest.equals(MeshCodec.FORWARD_ACK) && !manifest.equals(MeshCodec.CONTROL)) {
            // Pekko's convention for a type this node does not know (a newer node's): the message is dropped.
            throw new NotSerializableException("an unknown manifest of the mesh: " + manifest);
        }
        return codec.decode(bytes, manifest);
    }
}
