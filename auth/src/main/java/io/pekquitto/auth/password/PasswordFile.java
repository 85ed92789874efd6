package io.pekquitto.auth.password;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A password file as {@code mosquitto_passwd} writes it: one {@code user:hash} line per user, in the
 * order written; blank lines and {@code #} comments are skipped (and not kept when the file is written
 * back, as {@code mosquitto_passwd} does not keep them either).
 */
public final class PasswordFile {
    private final Map<String, PasswordHash> hashes;

    private PasswordFile(Map<String, PasswordHash> hashes) {
        this.hashes = hashes;
    }

    /** An empty file, to add users to. */
    public static PasswordFile empty() {
        return new PasswordFile(new LinkedHashMap<>());
    }

    /** @throws PasswordFileException naming the file and the line that cannot be read */
    public static PasswordFile read(Path file) {
        try {
            return parse(Files.readAllLines(file, StandardCharsets.UTF_8), "password file " + file);
        } catch (NoSuchFileException e) {
            throw new PasswordFileException("password file " + file + " does not exist");
        } catch (IOException e) {
            throw new PasswordFileException("password file " + file + " cannot be read: " + e.getMessage(), e);
        }
    }

    /** @param source what the lines are, for the messages: "password file /etc/passwords" */
    public static PasswordFile parse(List<String> lines, String source) {
        var hashes = new LinkedHashMap<String, PasswordHash>();
        for (int i = 0; i < lines.size(); i++) {
            var line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            var where = source + ", line " + (i + 1);
            int colon = line.indexOf(':');
            if (colon <= 0) throw new PasswordFileException(where + ": not a user:hash line");
            var user = line.substring(0, colon);
            PasswordHash hash;
            try {
                hash = PasswordHash.parse(line.substring(colon + 1));
            } catch (IllegalArgumentException e) {
                throw new PasswordFileException(where + " (user " + user + "): " + e.getMessage());
            }
            if (hashes.put(user, hash) != null) throw new PasswordFileException(where + ": a second line for user " + user);
        }
        return new PasswordFile(hashes);
    }

    public Optional<PasswordHash> hashOf(String user) {
        return Optional.ofNullable(hashes.get(user));
    }

    public Set<String> users() {
        return hashes.keySet();
    }

    /** Adds {@code user}, or replaces its hash where its line was. */
    public void put(String user, PasswordHash hash) {
        if (user.isEmpty() || user.contains(":")) throw new IllegalArgumentException("a username may not be empty or contain ':'");
        hashes.put(user, hash);
    }

    /** Removes {@code user}; whether it was there. */
    public boolean remove(String user) {
        return hashes.remove(user) != null;
    }

    /** Writes the file whole, through a temporary file in its directory, so a reader never sees half of it. */
    public void write(Path file) throws IOException {
        var lines = new ArrayList<String>(hashes.size());
        hashes.forEach((user, hash) -> lines.add(user + ":" + hash.encoded()));
        var directory = file.toAbsolutePath().getParent();
        var temporary = Files.createTempFile(directory, "." + file.getFileName(), ".tmp");
        try {
            Files.write(temporary, lines, StandardCharsets.UTF_8);
            try {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
    }
}
