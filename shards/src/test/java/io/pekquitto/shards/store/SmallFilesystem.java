package io.pekquitto.shards.store;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A tmpfs of a few MiB mounted for a test, so that a disk really fills, and given room again as an
 * operator would: only where the test may mount one (as root, on Linux); elsewhere the test is skipped,
 * saying why. Unmounted at {@link #close()}. Also the end-to-end tests' (shards' test jar).
 */
public final class SmallFilesystem implements AutoCloseable {
    private final Path mountPoint;

    private SmallFilesystem(Path mountPoint) {
        this.mountPoint = mountPoint;
    }

    /** Mounts a tmpfs of {@code mebibytes} at {@code mountPoint} (created), or skips the test. */
    public static SmallFilesystem mount(Path mountPoint, int mebibytes) throws IOException, InterruptedException {
        Files.createDirectories(mountPoint);
        boolean mounted = run("mount", "-t", "tmpfs", "-o", "size=" + mebibytes + "m", "tmpfs", mountPoint.toString());
        assumeTrue(mounted, "cannot mount a tmpfs here (not root, or not Linux): the full-disk test needs one");
        return new SmallFilesystem(mountPoint);
    }

    public Path path() {
        return mountPoint;
    }

    /** Fills the filesystem with a file until {@code leftFree} bytes are left; deleting it gives the room back. */
    public Path ballast(long leftFree) throws IOException {
        var ballast = mountPoint.resolve("ballast");
        long size = Files.getFileStore(mountPoint).getUsableSpace() - leftFree;
        Files.write(ballast, new byte[(int) size]);
        return ballast;
    }

    /** Gives the filesystem room: it is {@code mebibytes} from now on, what it holds kept. */
    public void grow(int mebibytes) throws IOException, InterruptedException {
        if (!run("mount", "-o", "remount,size=" + mebibytes + "m", mountPoint.toString())) {
            throw new IOException("cannot grow the tmpfs at " + mountPoint);
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        run("umount", "-l", mountPoint.toString());
    }

    private static boolean run(String... command) throws IOException, InterruptedException {
        try {
            var process = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
            process.getInputStream().readAllBytes();
            return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException e) {
            return false;  // no mount command at all
        }
    }
}
