package io.pekquitto.auth.password;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code pekquitto passwd [-c] [-b] [-D] FILE USER [PASSWORD]}, with {@code mosquitto_passwd}'s flags:
 * {@code -c} creates (or overwrites) the file, {@code -b} takes the password from the command line,
 * {@code -D} deletes the user. Without {@code -b} the password is asked twice, without echo on a console.
 */
public final class PasswdCommand {
    static final String USAGE = """
            Usage: pekquitto passwd [-c] [-b] FILE USER [PASSWORD]
                   pekquitto passwd -D FILE USER

              -c  create the file, or overwrite it if it exists
              -b  take the password from the command line (it ends up in your shell history)
              -D  delete USER from the file
            Without -b the password is asked for twice. Lines are written as $7$ (PBKDF2-SHA512), which
            Mosquitto 2.0 and 2.1 read.
            """;

    private PasswdCommand() {}

    /** Runs the command; returns the exit status (0: done, 1: an error, said on {@code err}). */
    public static int run(List<String> args, InputStream in, PrintStream out, PrintStream err) {
        boolean create = false;
        boolean batch = false;
        boolean delete = false;
        var operands = new ArrayList<String>();
        for (var arg : args) {
            switch (arg) {
                case "-c" -> create = true;
                case "-b" -> batch = true;
                case "-D" -> delete = true;
                case "-h", "--help" -> {
                    out.print(USAGE);
                    return 0;
                }
                default -> {
                    if (arg.startsWith("-") && operands.isEmpty()) return usage(err, "unknown option " + arg);
                    operands.add(arg);
                }
            }
        }
        if (delete && (create || batch)) return usage(err, "-D cannot be used with -c or -b");
        int expected = batch ? 3 : 2;
        if (operands.size() != expected) return usage(err, batch ? "-b needs FILE USER PASSWORD" : "expected FILE USER");
        var file = Path.of(operands.get(0));
        var user = operands.get(1);
        if (user.isEmpty() || user.contains(":")) return fail(err, "a username may not be empty or contain ':'");
        try {
            var passwords = create ? PasswordFile.empty() : existing(file);
            if (delete) {
                if (!passwords.remove(user)) return fail(err, "user " + user + " is not in " + file);
            } else {
                var password = batch ? Optional.of(operands.get(2)) : askTwice(in, out);
                if (password.isEmpty()) return fail(err, "the passwords do not match");
                passwords.put(user, PasswordHash.create(password.get(), new SecureRandom()));
            }
            passwords.write(file);
            return 0;
        } catch (PasswordFileException e) {
            return fail(err, e.getMessage());
        } catch (IOException e) {
            return fail(err, file + " cannot be written: " + e.getMessage());
        }
    }

    private static PasswordFile existing(Path file) {
        if (!Files.exists(file)) throw new PasswordFileException(file + " does not exist: use -c to create it");
        return PasswordFile.read(file);
    }

    /** The password, typed twice; empty when the two differ. On a console nothing is echoed. */
    private static Optional<String> askTwice(InputStream in, PrintStream out) throws IOException {
        var console = System.console();
        String first;
        String second;
        if (console != null) {
            first = new String(console.readPassword("Password: "));
            second = new String(console.readPassword("Reenter password: "));
        } else {
            var reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            out.print("Password: ");
            first = reader.readLine();
            out.print("Reenter password: ");
            second = reader.readLine();
            out.println();
            if (first == null || second == null) throw new PasswordFileException("no password on standard input");
        }
        return first.equals(second) ? Optional.of(first) : Optional.empty();
    }

    private static int usage(PrintStream err, String problem) {
        err.println("pekquitto passwd: " + problem);
        err.print(USAGE);
        return 1;
    }

    private static int fail(PrintStream err, String problem) {
        err.println("pekquitto passwd: " + problem);
        return 1;
    }
}
