package io.pekquitto.shards.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiPredicate;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The durable {@link Store}: one RocksDB database, a column family per {@link Keyspace}. RocksDB
 * brings the write-ahead log, crash recovery, compaction and atomic batches; what is ours is the
 * mapping and the errors: a store that is locked, unreadable or corrupt is never opened as an empty one.
 */
public final class RocksStore implements Store {
    static {
        RocksDB.loadLibrary();
    }

    private final Path path;
    private final RocksDB db;
    private final DBOptions options;
    private final ColumnFamilyOptions familyOptions;
    private final List<ColumnFamilyHandle> handles;
    private final Map<Keyspace, ColumnFamilyHandle> byKeyspace = new EnumMap<>(Keyspace.class);
    private final WriteOptions writeOptions;

    private RocksStore(Path path, RocksDB db, DBOptions options, ColumnFamilyOptions familyOptions,
                       List<ColumnFamilyHandle> handles, Durability durability) {
        this.path = path;
        this.db = db;
        this.options = options;
        this.familyOptions = familyOptions;
        this.handles = handles;
        for (var keyspace : Keyspace.values()) byKeyspace.put(keyspace, handles.get(keyspace.ordinal() + 1));
        // BATCH: the log is written to the OS with each batch; FSYNC: and synced before write returns.
        this.writeOptions = new WriteOptions().setSync(durability == Durability.FSYNC);
    }

    /**
     * Opens the store at {@code path}, creating the directory and the database if missing.
     *
     * @throws StoreException naming the path and the cause: locked by another process, corrupt, unreadable
     */
    public static RocksStore open(Path path, Durability durability) {
        if (durability == Durability.NONE) throw new IllegalArgumentException("durability none is the MemoryStore");
        try {
            Files.createDirectories(path);
        } catch (IOException e) {
            throw new StoreException("store.path " + path + " cannot be created: " + e, e);
        }
        var familyOptions = new ColumnFamilyOptions();
        var descriptors = new ArrayList<ColumnFamilyDescriptor>();
        descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, familyOptions));
        for (var keyspace : Keyspace.values()) descriptors.add(new ColumnFamilyDescriptor(keyspace.columnFamily(), familyOptions));
        var options = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true).setParanoidChecks(true);
        var handles = new ArrayList<ColumnFamilyHandle>();
        try {
            var db = RocksDB.open(options, path.toString(), descriptors, handles);
            return new RocksStore(path, db, options, familyOptions, handles, durability);
        } catch (RocksDBException e) {
            options.close();
            familyOptions.close();
            throw new StoreException(describe(path, e), e);
        }
    }

    /** Why the store at {@code path} did not open, in an operator's words. */
    static String describe(Path path, RocksDBException e) {
        var code = e.getStatus() == null ? Status.Code.Undefined : e.getStatus().getCode();
        var message = e.getMessage();
        if (code == Status.Code.IOError && message != null && message.contains("lock")) {
            return "store " + path + " is locked by another process (is another broker running on it?): " + message;
        }
        if (code == Status.Code.Corruption) {
            return "store " + path + " is corrupt, and the broker does not start empty over it"
                    + " (move it away to start without the stored state): " + message;
        }
        return "store " + path + " cannot be opened: " + message;
    }

    @Override
    public void write(StoreBatch batch) {
        if (batch.isEmpty()) return;
        try (var writes = new WriteBatch()) {
            for (var write : batch.writes()) {
                var family = byKeyspace.get(write.keyspace());
                if (write.end() != null) {
                    writes.deleteRange(family, write.key(), write.end());
                } else if (write.value() == null) {
                    writes.delete(family, write.key());
                } else {
                    writes.put(family, write.key(), write.value());
                }
            }
            db.write(writeOptions, writes);
        } catch (RocksDBException e) {
            throw new StoreException("store " + path + ": a write failed: " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<byte[]> get(Keyspace keyspace, byte[] key) {
        try {
            return Optional.ofNullable(db.get(byKeyspace.get(keyspace), key));
        } catch (RocksDBException e) {
            throw new StoreException("store " + path + ": a read failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void scan(Keyspace keyspace, byte[] from, byte[] to, BiPredicate<byte[], byte[]> entry) {
        try (var iterator = db.newIterator(byKeyspace.get(keyspace))) {
            for (iterator.seek(from); iterator.isValid(); iterator.next()) {
                var key = iterator.key();
                if (to != null && Arrays.compareUnsigned(key, to) >= 0) break;
                if (!entry.test(key, iterator.value())) break;
            }
            iterator.status();
        } catch (RocksDBException e) {
            throw new StoreException("store " + path + ": reading " + keyspace + " failed: " + e.getMessage(), e);
        }
    }

    /** Closes the database: the log is flushed, the lock released. */
    @Override
    public void close() {
        handles.forEach(ColumnFamilyHandle::close);
        try {
            db.syncWal();
        } catch (RocksDBException e) {
            // Closing anyway: what was written is in the log the OS holds.
        }
        db.close();
        writeOptions.close();
        options.close();
        familyOptions.close();
    }

    /** The files of the database directory (tables, log, manifest): what an operator's disk pays. */
    @Override
    public long sizeOnDisk() {
        try (var files = Files.list(path)) {
            return files.mapToLong(file -> file.toFile().length()).sum();
        } catch (IOException | UncheckedIOException e) {
            return 0;  // a file removed while listed (a compaction): the next sample counts again
        }
    }
}
