package io.pekquitto.shards.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.BiPredicate;

/**
 * The store as it will be once the writes handed to the writer are written: its entries with the
 * unwritten writes applied on top, in their order. A shard reads its sessions through it (their queued
 * messages, a session lost with a restarted shard) while its writer waits for a slow disk, instead of
 * waiting with it. A view to read: it writes nothing.
 *
 * <p>Each read takes the unwritten writes before it reads the store: a write that lands in between is
 * then in both, and applying it again changes nothing (the last write of a key decides its value),
 * whereas one taken after the read could have left the writer's list without reaching the read.
 */
final class ReadThrough implements Store {
    private static final byte[] DELETED = new byte[0];

    private final Store store;
    private final Unwritten unwritten;

    /** The writes not known to be written that meet a range of keys ({@link StoreBatch.Write#meets}), oldest first. */
    interface Unwritten {
        List<StoreBatch.Write> meeting(Keyspace keyspace, byte[] from, byte[] to);
    }

    ReadThrough(Store store, Unwritten unwritten) {
        this.store = store;
        this.unwritten = unwritten;
    }

    @Override
    public void scan(Keyspace keyspace, byte[] from, byte[] to, BiPredicate<byte[], byte[]> entry) {
        var overlay = new Overlay(unwritten.meeting(keyspace, from, to));
        if (overlay.latest.isEmpty() && overlay.deletedRanges.isEmpty()) {
            store.scan(keyspace, from, to, entry);
        } else {
            overlay.new Merge(entry).run(store, keyspace, from, to);
        }
    }

    @Override
    public Optional<byte[]> get(Keyspace keyspace, byte[] key) {
        byte[][] found = {null};
        scan(keyspace, key, Arrays.copyOf(key, key.length + 1), (stored, value) -> {  // the next key: key + 0x00
            found[0] = value;
            return false;
        });
        return Optional.ofNullable(found[0]);
    }

    @Override
    public void write(StoreBatch batch) {
        throw new UnsupportedOperationException("a read-through view writes nothing: the shard's batch does");
    }

    @Override
    public void close() {}

    /** The unwritten writes of one range, by key. */
    private static final class Overlay {
        /** Per key, the value of its last unwritten put, or {@link #DELETED}: the store's entry does not count. */
        private final TreeMap<byte[], byte[]> latest = new TreeMap<>(Arrays::compareUnsigned);
        /** Ranges deleted by unwritten writes: the store's entries in them do not count (the later puts are in {@code latest}). */
        private final List<byte[][]> deletedRanges = new ArrayList<>();

        /** @param unwritten the writes not known to be written that meet the range read, oldest first */
        private Overlay(List<StoreBatch.Write> unwritten) {
            for (var write : unwritten) {
                if (write.end() != null) {
                    latest.subMap(write.key(), write.end()).replaceAll((key, value) -> DELETED);
                    deletedRanges.add(new byte[][] {write.key(), write.end()});
                } else {
                    latest.put(write.key(), write.value() == null ? DELETED : write.value());
                }
            }
        }

        /** The store's entries and the unwritten puts, merged in key order. */
        private final class Merge {
            private final BiPredicate<byte[], byte[]> entry;
            private final Iterator<Map.Entry<byte[], byte[]>> puts = latest.entrySet().iterator();
            private Map.Entry<byte[], byte[]> next;
            private boolean stopped;

            Merge(BiPredicate<byte[], byte[]> entry) {
                this.entry = entry;
                advance();
            }

            void run(Store store, Keyspace keyspace, byte[] from, byte[] to) {
                store.scan(keyspace, from, to, this::stored);
                while (!stopped && next != null) emitNext();
            }

            /** A stored entry: first the unwritten puts of keys before it, then the entry as the last write left it. */
            private boolean stored(byte[] key, byte[] value) {
                while (!stopped && next != null && Arrays.compareUnsigned(next.getKey(), key) < 0) emitNext();
                if (stopped) return false;
                if (next != null && Arrays.equals(next.getKey(), key)) {
                    emitNext();
                } else if (!isDeleted(key)) {
                    stopped = !entry.test(key, value);
                }
                return !stopped;
            }

            /** Gives the next unwritten write of the range to {@code entry}, a put only (a delete hides the stored entry). */
            private void emitNext() {
                if (next.getValue() != DELETED) stopped = !entry.test(next.getKey(), next.getValue());
                advance();
            }

            private void advance() {
                next = puts.hasNext() ? puts.next() : null;
            }
        }

        private boolean isDeleted(byte[] key) {
            for (var range : deletedRanges) {
                if (Arrays.compareUnsigned(key, range[0]) >= 0 && Arrays.compareUnsigned(key, range[1]) < 0) return true;
            }
            return false;
        }
    }
}
