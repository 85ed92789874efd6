package io.pekquitto.shards.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The keys of the store. A session's entries in QUEUED and IN_FLIGHT start with its client id and a
 * 0 byte, which no client id contains (MQTT strings hold no U+0000, [MQTT-1.5.4-2]): all of one
 * client sort together, in sequence order, and one range delete ends them.
 */
final class StoreKeys {
    /** IN_FLIGHT: an outgoing QoS 2 message, by its sequence number. */
    static final byte OUTGOING = 'o';
    /** IN_FLIGHT: an incoming QoS 2 packet identifier awaiting PUBREL. */
    static final byte INCOMING = 'i';

    private StoreKeys() {}

    /** SESSIONS, WILLS and RETAINED: the client id or the topic itself. */
    static byte[] of(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] key) {
        return new String(key, StandardCharsets.UTF_8);
    }

    /** QUEUED: client id, 0, sequence number. */
    static byte[] queued(String clientId, long seq) {
        var id = of(clientId);
        return ByteBuffer.allocate(id.length + 1 + Long.BYTES).put(id).put((byte) 0).putLong(seq).array();
    }

    /** IN_FLIGHT: client id, 0, {@link #OUTGOING}, sequence number. */
    static byte[] outgoing(String clientId, long seq) {
        var id = of(clientId);
        return ByteBuffer.allocate(id.length + 2 + Long.BYTES).put(id).put((byte) 0).put(OUTGOING).putLong(seq).array();
    }

    /** IN_FLIGHT: client id, 0, {@link #INCOMING}, packet identifier. */
    static byte[] incoming(String clientId, int packetId) {
        var id = of(clientId);
        return ByteBuffer.allocate(id.length + 2 + Short.BYTES).put(id).put((byte) 0).put(INCOMING)
                .putShort((short) packetId).array();
    }

    /** RELAYED: the sending shard's run (a random number), and its count of relayed messages. */
    static byte[] relayed(long run, long count) {
        return ByteBuffer.allocate(2 * Long.BYTES).putLong(run).putLong(count).array();
    }

    /** The first key of a client's entries in QUEUED and IN_FLIGHT. */
    static byte[] clientStart(String clientId) {
        var id = of(clientId);
        return ByteBuffer.allocate(id.length + 1).put(id).put((byte) 0).array();
    }

    /** The key after a client's last entry in QUEUED and IN_FLIGHT. */
    static byte[] clientEnd(String clientId) {
        var id = of(clientId);
        return ByteBuffer.allocate(id.length + 1).put(id).put((byte) 1).array();
    }

    /** The client id a QUEUED or IN_FLIGHT key begins with. */
    static String clientOf(byte[] key) {
        int end = 0;
        while (end < key.length && key[end] != 0) end++;
        return new String(key, 0, end, StandardCharsets.UTF_8);
    }

    /** What follows the client id and its 0 byte. */
    static ByteBuffer rest(byte[] key) {
        int end = 0;
        while (end < key.length && key[end] != 0) end++;
        return ByteBuffer.wrap(key, end + 1, key.length - end - 1);
    }
}
