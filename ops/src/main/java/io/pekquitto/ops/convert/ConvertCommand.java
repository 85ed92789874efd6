package io.pekquitto.ops.convert;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code pekquitto convert mosquitto.conf}: prints the equivalent pekquitto configuration on standard output,
 * with a comment for every line it could not carry over and why.
 */
public final class ConvertCommand {
    static final String USAGE = "Usage: pekquitto convert MOSQUITTO_CONF > pekquitto.conf";

    private ConvertCommand() {}

    /** Runs {@code convert ARGS}; returns the exit status: 0 once printed, 1 if the file cannot be read, 2 for bad arguments. */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        if (args.size() != 1 || args.get(0).startsWith("-")) {
            err.println(USAGE);
            return 2;
        }
        var source = Path.of(args.get(0));
        try {
            out.print(MosquittoConversion.convert(source, MosquittoConf.read(source)));
            return 0;
        } catch (IOException e) {
            err.println("pekquitto convert: " + e.getMessage());
            return 1;
        }
    }
}
