package io.pekquitto.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The CPU time a broker process has used, all its threads, from {@code /proc/PID/stat}. */
final class BrokerCpu {
    /** Linux reports utime and stime in USER_HZ ticks, 100 a second on every architecture it exports them. */
    private static final long NANOS_PER_TICK = 10_000_000L;

    private BrokerCpu() {}

    /** User plus system time of process {@code pid} so far, in nanoseconds (10 ms resolution). */
    static long nanos(long pid) {
        try {
            return nanosOf(Files.readString(Path.of("/proc/" + pid + "/stat")));
        } catch (IOException e) {
            throw new Options.UsageException("cannot read /proc/" + pid + "/stat: " + e.getMessage());
        }
    }

    /** User plus system time in a {@code /proc/PID/stat} line (proc(5): utime and stime, fields 14 and 15). */
    static long nanosOf(String stat) {
        // The command name, field 2, is in parentheses and may hold spaces and parentheses: count after the last ')'.
        var fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * NANOS_PER_TICK;
    }
}
