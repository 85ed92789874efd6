package io.pekquitto.e2e.security;

import io.pekquitto.auth.tls.TestCertificates;
import io.pekquitto.e2e.interop.MosquittoBroker;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Mosquitto's own configurations (ops test resources mosquitto-configs/, README there) made runnable in a test's
 * directory: each port a free one on 127.0.0.1, each file one there (the resources' password and ACL files, and
 * the test's certificates under the names Mosquitto's tests give theirs), and Mosquitto kept as the test's user.
 */
final class MosquittoConfigs implements AutoCloseable {
    /** Options whose argument is a file, which is looked up by its name in the test's directory. */
    private static final Set<String> FILES = Set.of("password_file", "acl_file", "cafile", "certfile", "keyfile",
            "bridge_cafile", "bridge_certfile", "bridge_keyfile");
    private static final Pattern HOST_PORT = Pattern.compile("(.*):(\\d+)");

    private final SecurityFiles files;
    private final Path directory;
    private final TestCertificates certificates;
    /** Each port of the originals and the free one that stands for it. */
    private final Map<Integer, Integer> ports = new HashMap<>();

    /** Writes the resources' files and {@code certificates} under Mosquitto's names into {@code files}' directory. */
    private MosquittoConfigs(SecurityFiles files, TestCertificates certificates) throws IOException {
        this.files = files;
        this.directory = files.directory();
        this.certificates = certificates;
        for (var name : List.of("pwfile", "01-connect-uname-password-denied.pwfile", "09-acl-access-variants.acl")) {
            Files.writeString(directory.resolve(name), resource(name));
        }
        // Mosquitto's test/ssl names, and the Let's Encrypt post's.
        for (var name : List.of("all-ca.crt", "ISRG_Root_X1.pem")) Files.copy(certificates.caFile(), directory.resolve(name));
        Files.copy(certificates.server().certificateFile(), directory.resolve("fullchain.pem"));
        Files.copy(certificates.server().keyFile(), directory.resolve("privkey.pem"));
        Files.copy(certificates.server().certificateFile(), directory.resolve("server.crt"));
        Files.copy(certificates.server().keyFile(), directory.resolve("server.key"));
    }

    /** In a directory of the test's own, {@code name}, with certificates made for the test; {@link #close} deletes it. */
    static MosquittoConfigs create(String name) {
        var files = SecurityFiles.create(name);
        try {
            return new MosquittoConfigs(files, TestCertificates.create(Files.createDirectory(files.directory().resolve("made"))));
        } catch (IOException e) {
            files.close();
            throw new UncheckedIOException(e);
        }
    }

    Path directory() {
        return directory;
    }

    /** The certificates the files under Mosquitto's names are copies of. */
    TestCertificates certificates() {
        return certificates;
    }

    @Override
    public void close() {
        files.close();
    }

    static String resource(String name) {
        try (InputStream in = Objects.requireNonNull(MosquittoConfigs.class.getResourceAsStream("/mosquitto-configs/" + name), name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The free port that stands for {@code original}'s port in the files written so far. */
    int port(int original) {
        return Objects.requireNonNull(ports.get(original), () -> "no port " + original + " in the configuration");
    }

    /** Resource {@code name} rewritten as the class says, written into the directory; returns its path. */
    Path write(String name) throws Exception {
        var lines = new ArrayList<String>();
        for (var line : resource(name).split("\n", -1)) lines.add(rewrite(line));
        // As root, Mosquitto would switch to its own user, who cannot read the test's directory.
        lines.add("user " + System.getProperty("user.name"));
        return Files.write(directory.resolve(name), lines);
    }

    private String rewrite(String line) throws Exception {
        var words = line.strip().split("\\s+");
        if (words.length < 2) return line;
        var option = words[0];
        if (option.equals("port")) return "port " + free(words[1]) + "\nbind_address 127.0.0.1";
        if (option.equals("listener")) return "listener " + free(words[1]) + " 127.0.0.1";
        if (option.equals("address") || option.equals("addresses")) {
            var rewritten = new StringBuilder(option);
            for (int i = 1; i < words.length; i++) {
                var hostPort = HOST_PORT.matcher(words[i]);
                rewritten.append(' ').append(hostPort.matches() ? hostPort.group(1) + ":" + free(hostPort.group(2)) : words[i]);
            }
            return rewritten.toString();
        }
        if (FILES.contains(option)) return option + " " + directory.resolve(Path.of(words[1]).getFileName().toString());
        return line;
    }

    private int free(String original) throws Exception {
        var port = Integer.parseInt(original);
        var free = ports.get(port);
        if (free == null) {
            free = MosquittoBroker.freePort();
            ports.put(port, free);
        }
        return free;
    }
}
