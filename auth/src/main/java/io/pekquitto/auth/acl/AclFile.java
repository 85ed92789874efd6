package io.pekquitto.auth.acl;

import io.pekquitto.auth.acl.AclRule.Access;
import io.pekquitto.protocol.TopicFilter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads ACL lines in Mosquitto's format: {@code user NAME}, {@code topic [read|write|readwrite|deny] FILTER}
 * and {@code pattern [read|write|readwrite|deny] FILTER}; no access word means readwrite; blank lines and
 * {@code #} comments are skipped. A line that cannot be read is an error naming the source and the line.
 */
public final class AclFile {
    private AclFile() {}

    /** @throws AclFileException naming the file and the line */
    public static Acl read(Path file) {
        try {
            return parse(Files.readAllLines(file, StandardCharsets.UTF_8), "acl file " + file);
        } catch (NoSuchFileException e) {
            throw new AclFileException("acl file " + file + " does not exist");
        } catch (IOException e) {
            throw new AclFileException("acl file " + file + " cannot be read: " + e.getMessage(), e);
        }
    }

    /** @param source what the lines are, for the messages: "acl file /etc/acl", "auth.acl" */
    public static Acl parse(List<String> lines, String source) {
        var anonymous = new ArrayList<AclRule>();
        var byUser = new HashMap<String, List<AclRule>>();
        var patterns = new ArrayList<AclRule>();
        Optional<String> user = Optional.empty();
        for (int i = 0; i < lines.size(); i++) {
            var line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            var where = source + ", line " + (i + 1);
            var words = line.split("\\s+", 2);
            var keyword = words[0];
            var rest = words.length > 1 ? words[1] : "";
            switch (keyword) {
                case "user" -> {
                    if (rest.isEmpty()) throw new AclFileException(where + ": `user` needs a username");
                    user = Optional.of(rest);
                }
                case "topic" -> {
                    var rule = rule(rest, false, where);
                    if (user.isPresent()) {
                        byUser.computeIfAbsent(user.get(), u -> new ArrayList<>()).add(rule);
                    } else {
                        anonymous.add(rule);
                    }
                }
                case "pattern" -> patterns.add(rule(rest, true, where));
                default -> throw new AclFileException(where + ": unknown keyword `" + keyword
                        + "` (expected user, topic or pattern)");
            }
        }
        return new Acl(anonymous, byUser, patterns);
    }

    private static AclRule rule(String rest, boolean pattern, String where) {
        var words = rest.split("\\s+", 2);
        var access = Access.READWRITE;
        var filter = rest;
        if (words.length == 2 && isAccess(words[0])) {
            access = Access.valueOf(words[0].toUpperCase(Locale.ROOT));
            filter = words[1];
        } else if (isAccess(words[0])) {
            throw new AclFileException(where + ": `" + words[0] + "` needs a topic filter after it");
        }
        if (filter.isEmpty()) throw new AclFileException(where + ": a topic filter is missing");
        if (!TopicFilter.isValid(filter)) throw new AclFileException(where + ": `" + filter + "` is not a valid topic filter");
        return new AclRule(access, filter, pattern);
    }

    private static boolean isAccess(String word) {
        return switch (word) {
            case "read", "write", "readwrite", "deny" -> true;
            default -> false;
        };
    }
}
