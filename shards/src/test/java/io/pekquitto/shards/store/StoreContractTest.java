package io.pekquitto.shards.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** What every {@link Store} does, for the durable one and the one in memory alike. */
class StoreContractTest {
    @TempDir
    static Path directory;
    private static int opened;

    static Stream<String> stores() {
        return Stream.of("rocksdb", "memory");
    }

    private static Store open(String kind) {
        return kind.equals("memory") ? new MemoryStore() : RocksStore.open(directory.resolve("store-" + ++opened), Durability.BATCH);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> keys(Store store, Keyspace keyspace) {
        var keys = new ArrayList<String>();
        store.forEach(keyspace, (key, value) -> keys.add(new String(key, StandardCharsets.UTF_8)));
        return keys;
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aBatchIsAppliedWholeAndKeyspacesAreApart(String kind) {
        try (var store = open(kind)) {
            store.write(new StoreBatch().put(Keyspace.RETAINED, bytes("a/b"), bytes("1")).put(Keyspace.SESSIONS, bytes("a/b"), bytes("s")));
            store.write(new StoreBatch().put(Keyspace.RETAINED, bytes("a/b"), bytes("2")).delete(Keyspace.SESSIONS, bytes("a/b")));
            assertArrayEquals(bytes("2"), store.get(Keyspace.RETAINED, bytes("a/b")).orElseThrow());
            assertTrue(store.get(Keyspace.SESSIONS, bytes("a/b")).isEmpty());
            assertEquals(List.of(), keys(store, Keyspace.QUEUED));
        }
    }

    @ParameterizedTest
    @MethodSource("stores")
    void entriesComeInUnsignedKeyOrder(String kind) {
        try (var store = open(kind)) {
            var batch = new StoreBatch();
            for (var key : List.of("b", "a", "\u00e9", "ab", "")) batch.put(Keyspace.QUEUED, bytes(key), bytes(key));
            store.write(batch);
            assertEquals(List.of("", "a", "ab", "b", "\u00e9"), keys(store, Keyspace.QUEUED), "0xC3 sorts after 'b': unsigned");
        }
    }

    @ParameterizedTest
    @MethodSource("stores")
    void whatWasWrittenIsNotChangedByTheCaller(String kind) {
        try (var store = open(kind)) {
            var value = bytes("v");
            store.write(new StoreBatch().put(Keyspace.WILLS, bytes("k"), value));
            value[0] = 'x';
            assertArrayEquals(bytes("v"), store.get(Keyspace.WILLS, bytes("k")).orElseThrow());
        }
    }

    @ParameterizedTest
    @MethodSource("stores")
    void aRangeDeleteTakesEveryKeyFromItsStartToBeforeItsEnd(String kind) {
        try (var store = open(kind)) {
            var batch = new StoreBatch();
            for (var key : List.of("a", "b\u0000\u0001", "b\u0000\u00ff", "b\u0001", "ba")) batch.put(Keyspace.QUEUED, bytes(key), bytes(key));
            store.write(batch.deleteRange(Keyspace.QUEUED, bytes("b\u0000"), bytes("b\u0001")).put(Keyspace.QUEUED, bytes("b\u0000\u0002"), bytes("new")));
            assertEquals(List.of("a", "b\u0000\u0002", "b\u0001", "ba"), keys(store, Keyspace.QUEUED), "a put after the range delete stays");
        }
    }
}
