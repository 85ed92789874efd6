package io.pekquitto.ops.fatal;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * What the runnable broker does with an error that escapes one of its threads. A fatal one, a
 * {@link VirtualMachineError} (out of memory, stack overflow, an internal error of the JVM) or an error
 * caused by one, ends the process at once: one line on stderr naming the error and the thread, then a
 * halt with {@link #STATUS}, so that the broker's supervisor restarts it. At once means no shutdown hooks:
 * no graceful shutdown, whose DISCONNECTs and store flush need a heap and threads the broker may no
 * longer have (issue 24: a broker whose shard thread was gone lingered 20 s in it, serving nobody).
 * What the broker acknowledged is written already; the store's write-ahead log gives it back at start.
 * Any other error goes on to {@code otherwise}, the handler the thread would have had.
 */
final class FatalErrorHandler implements Thread.UncaughtExceptionHandler {
    /** The JVM's own for {@code -XX:+ExitOnOutOfMemoryError}, which the launcher sets: one status for a fatal error. */
    static final int STATUS = 3;
    /** Causes looked through for a fatal one; a chain this deep is a loop or not worth following. */
    private static final int MAX_CAUSES = 16;
    /** The line's fixed parts, as bytes made at start: on a full heap even a string constant's first use allocates. */
    private static final byte[] BEFORE_THREAD = ascii("pekquitto: fatal error on thread [");
    private static final byte[] AFTER_THREAD = ascii("]: ");
    private static final byte[] BEFORE_MESSAGE = ascii(": ");
    private static final byte[] END = ascii("; halting (exit status " + STATUS + ", no graceful shutdown)\n");
    private static final int LINE_MAX = 512;
    private static final Object HALTING = new Object();
    /** The process's stderr itself, file descriptor 2: {@code System.err}'s encoder allocates. Never closed. */
    private static final OutputStream STDERR = new FileOutputStream(FileDescriptor.err);

    static {
        // Class.getName() makes its string on first use: made now for the errors the line names.
        for (var fatal : List.of(OutOfMemoryError.class, StackOverflowError.class, InternalError.class, UnknownError.class)) {
            fatal.getName();
        }
    }

    private final IntConsumer halt;
    private final OutputStream err;
    private final Thread.UncaughtExceptionHandler otherwise;
    /** Where the line is put together: made now, as the heap may have no room left when it is needed. */
    private final byte[] line = new byte[LINE_MAX];
    private int length;

    /**
     * @param halt      ends the process with the status it is given, and does not return
     * @param err       where the one line goes, in a single write
     * @param otherwise what to do with an error that is not fatal
     */
    FatalErrorHandler(IntConsumer halt, OutputStream err, Thread.UncaughtExceptionHandler otherwise) {
        this.halt = halt;
        this.err = err;
        this.otherwise = otherwise;
    }

    /** Halts this JVM ({@link Runtime#halt}) on a fatal error, after a line on stderr; others go to {@code otherwise}. */
    static FatalErrorHandler halting(Thread.UncaughtExceptionHandler otherwise) {
        return new FatalErrorHandler(status -> Runtime.getRuntime().halt(status), STDERR, otherwise);
    }

    /**
     * What the JVM does with an uncaught error when nobody set a handler: {@code Exception in thread "NAME" }
     * and the stack trace, on {@code err}. For threads that have no handler of their own; the JVM's own,
     * the thread group, would call back the default handler, which is this one's owner.
     */
    static Thread.UncaughtExceptionHandler printing(PrintStream err) {
        return (thread, error) -> {
            err.print("Exception in thread \"" + thread.getName() + "\" ");
            error.printStackTrace(err);
        };
    }

    /** Whether {@code error} is, or was caused by, a {@link VirtualMachineError}: the JVM cannot be trusted to go on. */
    static boolean isFatal(Throwable error) {
        return fatalIn(error) != null;
    }

    /** The {@link VirtualMachineError} that {@code error} is or was caused by; null if none. */
    private static VirtualMachineError fatalIn(Throwable error) {
        var cause = error;
        for (int i = 0; cause != null && i < MAX_CAUSES; i++, cause = cause.getCause()) {
            if (cause instanceof VirtualMachineError fatal) return fatal;
        }
        return null;
    }

    @Override
    public void uncaughtException(Thread thread, Throwable error) {
        var fatal = fatalIn(error);
        if (fatal == null) {
            otherwise.uncaughtException(thread, error);
            return;
        }
        // One line: a fatal error on a second thread meanwhile (Pekko IO's and a shard's, as the heap fills)
        // waits here for the first one's halt.
        synchronized (HALTING) {
            try {
                writeLine(thread, fatal);
            } catch (IOException e) {
                // stderr is gone: the status still says it
            } finally {
                halt.accept(STATUS);
            }
        }
    }

    /** The line, put together without allocating: the heap may be full, and this is what the operator reads. */
    private void writeLine(Thread thread, VirtualMachineError fatal) throws IOException {
        length = 0;
        append(BEFORE_THREAD);
        append(thread.getName());
        append(AFTER_THREAD);
        append(fatal.getClass().getName());
        if (fatal.getMessage() != null) {
            append(BEFORE_MESSAGE);
            append(fatal.getMessage());
        }
        System.arraycopy(END, 0, line, length, END.length);  // room kept for it: a long name cuts the middle, not the end
        err.write(line, 0, length + END.length);
        err.flush();
    }

    private void append(byte[] bytes) {
        int n = Math.min(bytes.length, LINE_MAX - END.length - length);
        System.arraycopy(bytes, 0, line, length, n);
        length += n;
    }

    /** Thread names and the JVM's messages are ASCII; anything else shows as '?'. */
    private void append(String text) {
        int n = Math.min(text.length(), LINE_MAX - END.length - length);
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            line[length++] = (byte) (c < 0x80 ? c : '?');
        }
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
