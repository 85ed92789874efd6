package io.pekquitto.shards.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * A read through the writes a slow disk has not taken yet sees the store as it will be once they are
 * written: whatever part of them the store has written already when it is read (a write may land
 * between the moment the unwritten writes are taken and the read), and wherever the read stops.
 */
class ReadThroughProperties {
    /** Keys of one byte and of two: a range delete or a scan's end falls between a key and its longer neighbours. */
    @Provide
    Arbitrary<byte[]> keys() {
        return Arbitraries.integers().between(0, 9).list().ofMinSize(1).ofMaxSize(2).map(digits -> {
            var key = new byte[digits.size()];
            for (int i = 0; i < key.length; i++) key[i] = (byte) (digits.get(i) * 25);
            return key;
        });
    }

    @Provide
    Arbitrary<StoreBatch.Write> writes() {
        Arbitrary<StoreBatch.Write> put = Combinators.combine(keys(), Arbitraries.integers().between(1, 99))
                .as((key, value) -> new StoreBatch.Write(Keyspace.QUEUED, key, new byte[] {value.byteValue()}, null));
        Arbitrary<StoreBatch.Write> delete = keys().map(key -> new StoreBatch.Write(Keyspace.QUEUED, key, null, null));
        Arbitrary<StoreBatch.Write> deleteRange = Combinators.combine(keys(), keys())
                .as((one, other) -> Arrays.compareUnsigned(one, other) <= 0
                        ? new StoreBatch.Write(Keyspace.QUEUED, one, null, other)
                        : new StoreBatch.Write(Keyspace.QUEUED, other, null, one));
        Arbitrary<StoreBatch.Write> otherKeyspace = keys().map(key -> new StoreBatch.Write(Keyspace.RETAINED, key, new byte[] {7}, null));
        return Arbitraries.frequencyOf(Tuple.of(6, put), Tuple.of(2, delete), Tuple.of(1, deleteRange), Tuple.of(1, otherKeyspace));
    }

    @Property(tries = 500)
    void aReadThroughTheUnwrittenWritesSeesTheStoreAsItWillBe(
            @ForAll("writeLists") List<StoreBatch.Write> writes,
            @ForAll @IntRange(min = 0, max = 100) int writtenPercent,
            @ForAll @IntRange(min = 0, max = 100) int landedPercent,
            @ForAll("keys") byte[] start, @ForAll("keys") byte[] other, @ForAll boolean toTheEnd,
            @ForAll @IntRange(min = 1, max = 12) int limit) {
        int written = writes.size() * writtenPercent / 100;  // known to be written when the unwritten ones are taken
        int landed = written + (writes.size() - written) * landedPercent / 100;  // written by the time the store is read
        var disk = new MemoryStore();
        disk.write(StoreBatch.of(new ArrayList<>(writes.subList(0, landed))));
        var unwritten = writes.subList(written, writes.size());
        var view = new ReadThrough(disk, (keyspace, low, high) -> unwritten.stream().filter(write -> write.meets(keyspace, low, high)).toList());
        var expected = new MemoryStore();
        expected.write(StoreBatch.of(new ArrayList<>(writes)));

        boolean ordered = Arrays.compareUnsigned(start, other) <= 0;
        var from = ordered ? start : other;
        var end = toTheEnd ? null : ordered ? other : start;
        assertEquals(scan(expected, from, end, limit), scan(view, from, end, limit));
        assertEquals(expected.get(Keyspace.QUEUED, from).map(Arrays::toString), view.get(Keyspace.QUEUED, from).map(Arrays::toString),
                "get " + Arrays.toString(from));
    }

    @Provide
    Arbitrary<List<StoreBatch.Write>> writeLists() {
        return writes().list().ofMaxSize(40);
    }

    @Example
    void aViewWritesNothing() {
        var view = new ReadThrough(new MemoryStore(), (keyspace, from, to) -> List.of());
        assertThrows(UnsupportedOperationException.class, () -> view.write(new StoreBatch()));
        assertEquals(Optional.empty(), view.get(Keyspace.QUEUED, new byte[] {1}));
    }

    /** The entries the scan gives, as "key=value" strings, stopping after {@code limit}. */
    private static List<String> scan(Store store, byte[] from, byte[] to, int limit) {
        var seen = new ArrayList<String>();
        store.scan(Keyspace.QUEUED, from, to, (key, value) -> {
            seen.add(Arrays.toString(key) + "=" + value[0]);
            return seen.size() < limit;
        });
        return seen;
    }
}
