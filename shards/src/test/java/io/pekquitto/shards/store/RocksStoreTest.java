package io.pekquitto.shards.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The durable store across a close and a reopen, and the stores it must refuse to open. */
class RocksStoreTest {
    @TempDir
    Path directory;

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void assertMentions(Exception e, String... parts) {
        for (var part : parts) assertTrue(e.getMessage().contains(part), () -> "\"" + part + "\" not in: " + e.getMessage());
    }

    @Test
    void whatWasWrittenIsThereAfterAReopenInBothModes() {
        var path = directory.resolve("nested/data");  // a missing directory is created
        for (var durability : new Durability[] {Durability.BATCH, Durability.FSYNC}) {
            try (var store = RocksStore.open(path, durability)) {
                store.write(new StoreBatch().put(Keyspace.RETAINED, bytes(durability.name()), bytes("kept")));
            }
        }
        try (var store = RocksStore.open(path, Durability.BATCH)) {
            assertArrayEquals(bytes("kept"), store.get(Keyspace.RETAINED, bytes("BATCH")).orElseThrow());
            assertArrayEquals(bytes("kept"), store.get(Keyspace.RETAINED, bytes("FSYNC")).orElseThrow());
        }
    }

    @Test
    void aPlatformTheJarHasNoLibraryForIsNamedWithTheWaysOn() {
        var missing = new RuntimeException("librocksdbjni-osx-arm64.jnilib was not found inside JAR.");
        var e = new StoreException(RocksStore.noLibrary("Mac OS X", "aarch64", missing), missing);
        assertMentions(e, "Mac OS X on aarch64", "store.enabled = false", "-Pall-platforms", "librocksdbjni-osx-arm64.jnilib");
    }

    @Test
    void aStoreInUseIsRefusedNamingItsPath() {
        var path = directory.resolve("data");
        try (var first = RocksStore.open(path, Durability.BATCH)) {
            var e = assertThrows(StoreException.class, () -> RocksStore.open(path, Durability.BATCH).close());
            assertMentions(e, path.toString(), "locked by another process");
        }
    }

    @Test
    void aCorruptStoreIsRefusedRatherThanOpenedEmpty() throws IOException {
        var path = directory.resolve("data");
        try (var store = RocksStore.open(path, Durability.FSYNC)) {
            store.write(new StoreBatch().put(Keyspace.SESSIONS, bytes("client"), bytes("session")));
        }
        try (var files = Files.list(path)) {
            var manifest = files.filter(file -> file.getFileName().toString().startsWith("MANIFEST-")).findFirst().orElseThrow();
            var damaged = Files.readAllBytes(manifest);
            for (int i = 0; i < damaged.length; i += 7) damaged[i] ^= (byte) 0x5a;
            Files.write(manifest, damaged);
        }
        var e = assertThrows(StoreException.class, () -> RocksStore.open(path, Durability.BATCH).close());
        assertMentions(e, path.toString());
        assertTrue(e.getMessage().contains("corrupt") || e.getMessage().contains("cannot be opened"), e.getMessage());
    }

    @Test
    void aPathThatIsAFileIsRefusedNamingIt() throws IOException {
        var path = Files.writeString(directory.resolve("a-file"), "not a directory");
        var e = assertThrows(StoreException.class, () -> RocksStore.open(path, Durability.BATCH).close());
        assertMentions(e, path.toString());
    }

    /**
     * On a full disk RocksDB fails every write, and goes on failing after room comes back until it is
     * reopened (its Java API has no resume); {@link RocksStore#recover} reopens it once there is room,
     * and everything written before is there.
     */
    @Test
    void aFullDiskFailsEveryWriteUntilThereIsRoomAndTheStoreIsReopenedWithNothingLost() throws Exception {
        try (var disk = SmallFilesystem.mount(directory.resolve("disk"), 8)) {
            var ballast = disk.ballast(3 << 20);
            try (var store = RocksStore.open(disk.path().resolve("data"), Durability.BATCH)) {
                int written = 0;
                StoreException full = null;
                while (full == null && written < 10_000) {
                    try {
                        store.write(new StoreBatch().put(Keyspace.QUEUED, bytes("m" + written), new byte[1024]));
                        written++;
                    } catch (StoreException e) {
                        full = e;
                    }
                }
                assertTrue(full != null && written > 100, "the disk filled after " + written + " writes");
                assertMentions(full, disk.path().resolve("data").toString(), "No space left");
                var refused = assertThrows(StoreException.class, store::recover);
                assertMentions(refused, "bytes are free on its filesystem");

                Files.delete(ballast);  // the operator makes room
                assertThrows(StoreException.class,
                        () -> store.write(new StoreBatch().put(Keyspace.QUEUED, bytes("late"), new byte[1])),
                        "RocksDB keeps failing until reopened");
                store.recover();
                store.write(new StoreBatch().put(Keyspace.QUEUED, bytes("after"), new byte[1]));
                for (int i = 0; i < written; i++) assertTrue(store.get(Keyspace.QUEUED, bytes("m" + i)).isPresent(), "m" + i);
                assertTrue(store.get(Keyspace.QUEUED, bytes("after")).isPresent());
            }
        }
    }

    @Test
    void aHealthyStoreRecoversAtOnceWithoutAReopen() {
        try (var store = RocksStore.open(directory.resolve("data"), Durability.BATCH)) {
            store.write(new StoreBatch().put(Keyspace.RETAINED, bytes("a"), bytes("1")));
            store.recover();
            assertArrayEquals(bytes("1"), store.get(Keyspace.RETAINED, bytes("a")).orElseThrow());
            assertTrue(store.freeSpace() > 0);
        }
    }
}
