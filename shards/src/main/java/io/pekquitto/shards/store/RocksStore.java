package io.pekquitto.shards.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
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
    /** Below this many bytes free on its filesystem, the store is not reopened after a failure: it would fail again. */
    static final long MIN_FREE_TO_REOPEN = 1 << 20;
    /** The key a recovery writes and deletes to prove the database writes again. */
    private static final byte[] PROBE = "pekquitto-probe".getBytes(StandardCharsets.US_ASCII);

    private final Path path;
    private final DBOptions options;
    private final ColumnFamilyOptions familyOptions;
    private final List<ColumnFamilyDescriptor> descriptors;
    private final WriteOptions writeOptions;
    /**
     * Reads and writes take the read lock, a reopen the write lock: RocksDB is thread-safe, but its handles
     * change when it is reopened. The fields below are guarded by it.
     */
    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    /** Null while a reopen failed: every read and write then fails until the next one succeeds. */
    private RocksDB db;
    private List<ColumnFamilyHandle> handles;
    private final Map<Keyspace, ColumnFamilyHandle> byKeyspace = new EnumMap<>(Keyspace.class);

    private RocksStore(Path path, DBOptions options, ColumnFamilyOptions familyOptions,
                       List<ColumnFamilyDescriptor> descriptors, Durability durability) {
        this.path = path;
        this.options = options;
        this.familyOptions = familyOptions;
        this.descriptors = descriptors;
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
        loadLibrary();
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
        var store = new RocksStore(path, options, familyOptions, descriptors, durability);
        try {
            store.openDatabase();
            return store;
        } catch (RocksDBException e) {
            store.writeOptions.close();
            options.close();
            familyOptions.close();
            throw new StoreException(describe(path, e), e);
        }
    }

    /** RocksDB's native library, once (RocksDB keeps it loaded); a runnable jar without it for this platform says so. */
    private static void loadLibrary() {
        try {
            RocksDB.loadLibrary();
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            throw new StoreException(noLibrary(System.getProperty("os.name"), System.getProperty("os.arch"), e), e);
        }
    }

    /** Why there is no store on this platform, and the two ways on. */
    static String noLibrary(String os, String arch, Throwable cause) {
        return "the store needs RocksDB's native library, and this jar has none for " + os + " on " + arch
                + " (the runnable jar carries Linux on x86-64 and aarch64): run without a store (store.enabled = false), "
                + "or build a jar for every platform RocksDB supports (./mvnw -B -DskipTests -Pall-platforms package): " + cause;
    }

    /** Opens the database into the fields; the caller holds the write lock, or is the constructor's. */
    private void openDatabase() throws RocksDBException {
        var opened = new ArrayList<ColumnFamilyHandle>();
        db = RocksDB.open(options, path.toString(), descriptors, opened);
        handles = opened;
        for (var keyspace : Keyspace.values()) byKeyspace.put(keyspace, opened.get(keyspace.ordinal() + 1));
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
        lock.readLock().lock();
        try (var writes = new WriteBatch()) {
            requireOpen("a write");
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
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public Optional<byte[]> get(Keyspace keyspace, byte[] key) {
        lock.readLock().lock();
        try {
            requireOpen("a read");
            return Optional.ofNullable(db.get(byKeyspace.get(keyspace), key));
        } catch (RocksDBException e) {
            throw new StoreException("store " + path + ": a read failed: " + e.getMessage(), e);
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public void scan(Keyspace keyspace, byte[] from, byte[] to, BiPredicate<byte[], byte[]> entry) {
        lock.readLock().lock();
        try {
            requireOpen("a read");
            scanOpen(keyspace, from, to, entry);
        } finally {
            lock.readLock().unlock();
        }
    }

    private void scanOpen(Keyspace keyspace, byte[] from, byte[] to, BiPredicate<byte[], byte[]> entry) {
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

    private void requireOpen(String what) {
        if (db == null) throw new StoreException("store " + path + ": " + what + " failed: it is not open (a reopen failed)", null);
    }

    /**
     * Writes and deletes a probe; if that fails, as every write does after one failed, reopens the
     * database (what it had written is read back from its log) and probes again. A filesystem with
     * less than {@link #MIN_FREE_TO_REOPEN} bytes free is not reopened: it would fail again.
     */
    @Override
    public void recover() {
        lock.writeLock().lock();
        try {
            if (db != null && probe()) return;
            long free = freeSpace();
            if (free >= 0 && free < MIN_FREE_TO_REOPEN) {
                throw new StoreException("store " + path + ": only " + free + " bytes are free on its filesystem", null);
            }
            closeDatabase();
            try {
                openDatabase();
            } catch (RocksDBException e) {
                db = null;
                throw new StoreException(describe(path, e), e);
            }
            if (!probe()) throw new StoreException("store " + path + ": a write failed after reopening it", null);
        } finally {
            lock.writeLock().unlock();
        }
    }

    private boolean probe() {
        try (var writes = new WriteBatch()) {
            writes.put(PROBE, PROBE);
            writes.delete(PROBE);
            db.write(writeOptions, writes);
            return true;
        } catch (RocksDBException e) {
            return false;
        }
    }

    /** Closes the database: the log is flushed, the lock released. */
    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            closeDatabase();
            writeOptions.close();
            options.close();
            familyOptions.close();
        } finally {
            lock.writeLock().unlock();
        }
    }

    private void closeDatabase() {
        if (db == null) return;
        handles.forEach(ColumnFamilyHandle::close);
        try {
            db.syncWal();
        } catch (RocksDBException e) {
            // Closing anyway: what was written is in the log the OS holds.
        }
        db.close();
        db = null;
    }

    @Override
    public long freeSpace() {
        try {
            return Files.getFileStore(path).getUsableSpace();
        } catch (IOException e) {
            return -1;
        }
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
