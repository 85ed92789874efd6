package io.pekquitto.cluster.counts;

import java.io.NotSerializableException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.pekko.serialization.SerializerWithStringManifest;

/**
 * Pekko's serializer for {@link NodeCounts} between nodes, registered by {@code ClusterConfig} (no Java
 * serialization): the node's address (a 16-bit length and UTF-8), then its five counts, 64 bits each.
 */
public final class CountsSerializer extends SerializerWithStringManifest {
    /** Ours, beside the mesh's (1_350_425_025). */
    public static final int IDENTIFIER = 1_350_425_026;
    static final String MANIFEST = "N";

    @Override
    public int identifier() {
        return IDENTIFIER;
    }

    @Override
    public String manifest(Object message) {
        if (message instanceof NodeCounts) return MANIFEST;
        throw new IllegalArgumentException("not a node's counts: " + message.getClass().getName());
    }

    @Override
    public byte[] toBinary(Object message) {
        var counts = (NodeCounts) message;
        var node = counts.node().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + node.length + 5 * 8).putShort((short) node.length).put(node)
                .putLong(counts.connected()).putLong(counts.sessions()).putLong(counts.subscriptions())
                .putLong(counts.received()).putLong(counts.sent()).array();
    }

    @Override
    public Object fromBinary(byte[] bytes, String manifest) throws NotSerializableException {
        if (!MANIFEST.equals(manifest)) throw new NotSerializableException("an unknown manifest of the counts: " + manifest);
        try {
            var in = ByteBuffer.wrap(bytes);
            var node = new byte[in.getShort() & 0xFFFF];
            in.get(node);
            var counts = new NodeCounts(new String(node, StandardCharsets.UTF_8), in.getLong(), in.getLong(), in.getLong(),
                    in.getLong(), in.getLong());
            if (in.hasRemaining()) throw new NotSerializableException(in.remaining() + " bytes left over in a node's counts");
            return counts;
        } catch (BufferUnderflowException e) {
            throw new NotSerializableException("a node's counts cut short");
        }
    }
}
