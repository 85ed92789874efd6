package io.pekquitto.auth.password;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pekquitto.auth.Authentication;
import io.pekquitto.auth.Authentication.Refusal;
import io.pekquitto.auth.Credentials;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Password files read and written, the authenticator's decisions, and the passwd command. */
class PasswordFileTest {
    private static final String ALICE =
            "alice:$7$101$j0gE+iOZppkX3hdI$H9YhtF5Jed7wiqrOpKT1hYoNRKyt0VexfpjWUq48SQhx/lnD148Ar0kSxqBD38reo5fC/yVs+0v80ROaKubF9w==";
    private static final InetSocketAddress CLIENT = new InetSocketAddress("127.0.0.1", 50000);

    @TempDir
    Path directory;

    private static Credentials credentials(String username, String password, String commonName) {
        return new Credentials("c", Optional.ofNullable(username),
                Optional.ofNullable(password).map(p -> p.getBytes(StandardCharsets.UTF_8)), CLIENT, Optional.ofNullable(commonName));
    }

    private static Authentication.Refusal refusal(Authentication authentication) {
        return authentication instanceof Authentication.Refused refused ? refused.refusal() : null;
    }

    @Test
    void linesCommentsAndErrorsWithLineNumbers() {
        var file = PasswordFile.parse(List.of("# users", "", ALICE + "\r"), "test");
        assertEquals(List.of("alice"), List.copyOf(file.users()));
        var bad = assertThrows(PasswordFileException.class, () -> PasswordFile.parse(List.of("# users", ALICE, "bob:$5$x$y"), "password file f"));
        assertTrue(bad.getMessage().startsWith("password file f, line 3 (user bob): unknown hash type"), bad.getMessage());
        var noColon = assertThrows(PasswordFileException.class, () -> PasswordFile.parse(List.of("bob"), "f"));
        assertEquals("f, line 1: not a user:hash line", noColon.getMessage());
        var twice = assertThrows(PasswordFileException.class, () -> PasswordFile.parse(List.of(ALICE, ALICE), "f"));
        assertEquals("f, line 2: a second line for user alice", twice.getMessage());
        var missing = assertThrows(PasswordFileException.class, () -> PasswordFile.read(directory.resolve("none")));
        assertTrue(missing.getMessage().contains("does not exist"));
    }

    @Test
    void theAuthenticatorChecksPasswordsAndAnonymousClients() {
        var passwords = Optional.of(PasswordFile.parse(List.of(ALICE), "f"));
        var strict = new PasswordFileAuthenticator(passwords, false);
        assertEquals(Authentication.allowed(Optional.of("alice")), strict.authenticate(credentials("alice", "wonderland", null)));
        assertEquals(Refusal.BAD_USERNAME_OR_PASSWORD, refusal(strict.authenticate(credentials("alice", "wonderlan", null))));
        assertEquals(Refusal.BAD_USERNAME_OR_PASSWORD, refusal(strict.authenticate(credentials("alice", null, null))));
        assertEquals(Refusal.BAD_USERNAME_OR_PASSWORD, refusal(strict.authenticate(credentials("mallory", "wonderland", null))));
        assertEquals(Refusal.NOT_AUTHORIZED, refusal(strict.authenticate(credentials(null, null, null))));
        assertEquals(Authentication.allowed(Optional.empty()),
                new PasswordFileAuthenticator(passwords, true).authenticate(credentials(null, null, null)));
        var why = (Authentication.Refused) strict.authenticate(credentials("alice", "hunter2", null));
        assertFalse(why.why().contains("hunter2"), "a password is never in a message");
    }

    @Test
    void aVerifiedCertificateNameIsTheUsernameOfAClientThatSendsNone() {
        var strict = new PasswordFileAuthenticator(Optional.of(PasswordFile.parse(List.of(ALICE), "f")), false);
        assertEquals(Authentication.allowed(Optional.of("device-1")), strict.authenticate(credentials(null, null, "device-1")));
        assertEquals(Refusal.BAD_USERNAME_OR_PASSWORD, refusal(strict.authenticate(credentials("alice", "x", "device-1"))),
                "a username sent is checked, certificate or not");
    }

    private static int passwd(String input, String... args) {
        var sink = new PrintStream(new ByteArrayOutputStream(), true);
        return PasswdCommand.run(List.of(args), new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), sink, sink);
    }

    @Test
    void passwdCreatesAddsReplacesAndDeletes() throws Exception {
        var file = directory.resolve("passwords").toString();
        assertEquals(1, passwd("", "-b", file, "alice", "a"), "without -c the file must exist");
        assertEquals(0, passwd("", "-c", "-b", file, "alice", "a"));
        assertEquals(0, passwd("typed\ntyped\n", file, "bob"));
        assertEquals(1, passwd("one\ntwo\n", file, "carol"), "the two passwords differ");
        assertEquals(0, passwd("", "-b", file, "alice", "changed"));
        var read = PasswordFile.read(Path.of(file));
        assertEquals(List.of("alice", "bob"), List.copyOf(read.users()));
        assertTrue(read.hashOf("alice").orElseThrow().matches("changed".getBytes(StandardCharsets.UTF_8)));
        assertTrue(read.hashOf("bob").orElseThrow().matches("typed".getBytes(StandardCharsets.UTF_8)));
        assertEquals(0, passwd("", "-D", file, "alice"));
        assertEquals(1, passwd("", "-D", file, "alice"), "no such user");
        assertEquals(List.of("bob"), List.copyOf(PasswordFile.read(Path.of(file)).users()));
        assertEquals(1, passwd("", "-b", file, "a:b", "x"), "no ':' in a username");
        assertEquals(1, passwd("", "-D", "-b", file, "bob"));
        assertEquals(1, Files.list(directory).count(), "no temporary file left behind");
    }
}
