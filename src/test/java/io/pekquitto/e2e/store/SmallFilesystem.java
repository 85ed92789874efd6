package io.pekquitto.e2e.store;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A tmpfs of a few MiB mounted for a test, so that a broker's disk really fills, and grown later as an
 * operator gives it room: only where the test may mount one (as root, on Linux); elsewhere the test is
 * skipped, saying why. Unmounted at {@link #close()}.
 */
final class SmallFilesystem implements AutoCloseable {
    private final Path mountPoint;

    private SmallFilesystem(Path mountPoint) {
        this.mountPoint = mountPoint;
    }

    /** Mounts a tmpfs of {@code mebibytes} at {@code mountPoint} (created), or skips the test. */
    static SmallFilesystem mount(Path mountPoint, int mebibytes) throws IOException, InterruptedException {
        Files.createDirectories(mountPoint);
        boolean mounted = run("mount", "-t", "tmpfs", "-o", "size=" + mebibytes + "m", "tmpfs", mountPoint.toString());
        assumeTrue(mounted, "cannot mount a tmpfs here (not root, or not Linux): the full-disk test needs one");
        return new SmallFilesystem(mountPoint);
    }

    Path path() {
        return mountPoint;
    }

    /** Gives the filesystem room: it is {@code mebibytes} from now on, what it holds kept. */
    void grow(int mebibytes) throws IOException, InterruptedException {
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
