package io.pekquitto.e2e.security;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pekquitto.auth.password.PasswdCommand;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The files a secured test broker reads, written into a directory of the test's own that it deletes
 * when done: password files through {@code pekquitto passwd}, as a user would write them.
 */
public final class SecurityFiles implements AutoCloseable {
    private final Path directory;

    private SecurityFiles(Path directory) {
        this.directory = directory;
    }

    public static SecurityFiles create(String name) {
        try {
            return new SecurityFiles(Files.createTempDirectory("pekquitto-" + name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path directory() {
        return directory;
    }

    /** A password file made by {@code pekquitto passwd -b}, from user and password pairs. */
    Path passwords(String... usersAndPasswords) {
        var file = directory.resolve("passwords");
        for (int i = 0; i < usersAndPasswords.length; i += 2) {
            var args = new ArrayList<>(List.of("-b"));
            if (i == 0) args.add(0, "-c");
            args.addAll(List.of(file.toString(), usersAndPasswords[i], usersAndPasswords[i + 1]));
            passwd(args);
        }
        return file;
    }

    /** Runs {@code pekquitto passwd} and asserts that it succeeded. */
    static void passwd(List<String> args) {
        var out = new ByteArrayOutputStream();
        var status = PasswdCommand.run(args, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true),
                new PrintStream(out, true));
        assertEquals(0, status, () -> "passwd " + args + ": " + out.toString(StandardCharsets.UTF_8));
    }

    Path write(String name, String... lines) {
        try {
            return Files.write(directory.resolve(name), List.of(lines));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code path} as a quoted HOCON string. */
    public static String quoted(Path path) {
        return "\"" + path.toAbsolutePath().toString().replace("\\", "\\\\") + "\"";
    }

    @Override
    public void close() {
        try (Stream<Path> paths = Files.walk(directory)) {
            for (var path : paths.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
