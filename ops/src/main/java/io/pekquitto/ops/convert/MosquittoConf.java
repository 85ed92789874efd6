package io.pekquitto.ops.convert;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * A Mosquitto 2.x configuration file read as Mosquitto reads it: one option per line with its arguments
 * separated by spaces, {@code #} comments and blank lines skipped, and {@code include_dir DIR} replaced by the
 * {@code .conf} files of DIR in alphabetical order (mosquitto.conf(5)).
 */
public final class MosquittoConf {
    /** How deep {@code include_dir} may nest before the file is refused: a directory that includes itself. */
    static final int MOST_NESTED_INCLUDES = 8;

    /** One option line: where it is, its option name, its arguments, and its text as written. */
    public record Line(Path file, int number, String option, List<String> arguments, String text) {
        /** The arguments as one value, as Mosquitto reads a path or a word that ends the line. */
        String value() {
            return String.join(" ", arguments);
        }

        /** Where the line is, as a comment names it: {@code mosquitto.conf:12}. */
        String where() {
            return file.getFileName() + ":" + number;
        }
    }

    private MosquittoConf() {}

    /**
     * The option lines of {@code file} and of what it includes, in order.
     *
     * @throws IOException naming the file or directory that cannot be read
     */
    public static List<Line> read(Path file) throws IOException {
        var lines = new ArrayList<Line>();
        read(file, 0, lines);
        return lines;
    }

    private static void read(Path file, int depth, List<Line> into) throws IOException {
        if (depth > MOST_NESTED_INCLUDES) throw new IOException(file + ": include_dir nested more than " + MOST_NESTED_INCLUDES + " deep");
        List<String> text;
        try {
            text = Files.readAllLines(file);
        } catch (IOException e) {
            throw new IOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        for (int i = 0; i < text.size(); i++) {
            var trimmed = text.get(i).strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) continue;
            var words = trimmed.split("\\s+");
            var line = new Line(file, i + 1, words[0], List.of(Arrays.copyOfRange(words, 1, words.length)), trimmed);
            if (line.option().equals("include_dir") && !line.arguments().isEmpty()) {
                for (var included : confFiles(Path.of(line.value()))) read(included, depth + 1, into);
            } else {
                into.add(line);
            }
        }
    }

    /** The {@code .conf} files of {@code directory}, sorted by name as Mosquitto reads them. */
    private static List<Path> confFiles(Path directory) throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.filter(path -> path.getFileName().toString().endsWith(".conf") && Files.isRegularFile(path))
                    .sorted().toList();
        } catch (IOException e) {
            throw new IOException("cannot read include_dir " + directory + ": " + e.getMessage(), e);
        }
    }
}
