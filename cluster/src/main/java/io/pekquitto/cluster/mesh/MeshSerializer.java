package io.pekquitto.cluster.mesh;

import io.pekquitto.shards.node.MeshPeers;
import io.pekquitto.shards.node.NodeMesh;
import io.pekquitto.shards.shard.ShardCommand;
import java.io.NotSerializableException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializerWithStringManifest;

/**
 * Pekko's serializer for what a shard sends a peer shard on another node ({@code ShardCommand.Forward},
 * {@code ForwardAck}, {@code Control}), registered by {@code ClusterConfig}: a thin wrapper of
 * {@link MeshCodec}, which holds the byte layout (docs/cluster.md, The mesh's messages on the wire).
 * A message's times travel as ages on this JVM's {@code System.nanoTime()} ({@link MessageCodec}).
 *
 * <p>Shards are numbered per node ({@code MeshPeers}): the bytes start with the sending node's address, and the
 * receiver numbers the sender's shards through its own {@code MeshPeers} (the sender and a shared member on it).
 */
public final class MeshSerializer extends SerializerWithStringManifest {
    /** Ours, outside Pekko's reserved 0..40 and apart from ops' {@code WithoutRemoting.Unused} (1_350_425_001). */
    public static final int IDENTIFIER = 1_350_425_025;

    private final MeshCodec codec = new MeshCodec(System::nanoTime);
    private final ExtendedActorSystem system;
    /** This node's address as the others name it ({@code system@host:port}), written first in every message. */
    private final byte[] node;
    /** The broker's numbering of the shards, and how this node names them, once the broker has started. */
    private volatile MeshPeers peers;
    private volatile ShardNaming ours = ShardNaming.SAME_NODE;

    public MeshSerializer(ExtendedActorSystem system) {
        this.system = system;
        this.node = nodeOf(system).getBytes(StandardCharsets.UTF_8);
    }

    /** How a node is named among the shards' ids: its address's {@code system@host:port} (as {@code ClusterMesh} names it). */
    public static String nodeOf(ExtendedActorSystem system) {
        return system.provider().getDefaultAddress().hostPort();
    }

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
        peers();
        var body = codec.encode(message, ours);
        return ByteBuffer.allocate(2 + node.length + body.length).putShort((short) node.length).put(node).put(body).array();
    }

    @Override
    public Object fromBinary(byte[] bytes, String manifest) throws NotSerializableException {
        if (!manifest.equals(MeshCodec.FORWARD) && !manifest.equals(MeshCodec.FORWARD_ACK) && !manifest.equals(MeshCodec.CONTROL)) {
            // Pekko's convention for a type this node does not know (a newer node's): the message is dropped.
            throw new NotSerializableException("an unknown manifest of the mesh: " + manifest);
        }
        if (bytes.length < 2) throw new MeshFormatException("a mesh message of " + bytes.length + " bytes");
        int length = ((bytes[0] & 0xFF) << 8) | (bytes[1] & 0xFF);
        if (bytes.length < 2 + length) throw new MeshFormatException("a mesh message cut in its node's address");
        var sender = new String(bytes, 2, length, StandardCharsets.UTF_8);
        return codec.decode(bytes, 2 + length, manifest, numbering(sender));
    }

    /** The shards a message from {@code sender} names, as this node numbers them (by number when no broker runs here). */
    private ShardNaming numbering(String sender) {
        var numbered = peers();
        return numbered == null ? ShardNaming.SAME_NODE : ShardNaming.of(numbered, sender);
    }

    /** The broker's {@link MeshPeers}, looked up until the broker has published them, then kept; null before. */
    private MeshPeers peers() {
        var found = peers;
        if (found != null) return found;
        found = NodeMesh.get(Adapter.toTyped(system)).peers().orElse(null);
        if (found != null) {
            ours = ShardNaming.of(found, found.node());
            peers = found;
        }
        return found;
    }
}
