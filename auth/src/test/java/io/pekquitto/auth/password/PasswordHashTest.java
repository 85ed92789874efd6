package io.pekquitto.auth.password;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** Known answers from the tools that write these hashes, and the hashes pekquitto writes. */
class PasswordHashTest {
    /** {@code mosquitto_passwd -c -b FILE alice wonderland}, Debian's Mosquitto 2.0.11 (101 iterations, 12-byte salt). */
    private static final String MOSQUITTO_2_0 =
            "$7$101$j0gE+iOZppkX3hdI$H9YhtF5Jed7wiqrOpKT1hYoNRKyt0VexfpjWUq48SQhx/lnD148Ar0kSxqBD38reo5fC/yVs+0v80ROaKubF9w==";
    /** Mosquitto 1.x's form, SHA-512(password || salt): made with Python's hashlib for "c-secret", salt "0123456789ab". */
    private static final String MOSQUITTO_1 =
            "$6$MDEyMzQ1Njc4OWFi$axaP+tpFpsKmzrllGtNIoXMhnh80e8xdX9/Kn7h9hBK5sab4a9kQFZklK9JihO4Y0Zu3A6lCmN2qD4NiXZ+GrQ==";
    /** The argon2 reference CLI: {@code echo -n wonderland | argon2 saltsaltsalt1234 -id -t 2 -m 12 -p 1 -l 32 -e}. */
    private static final String ARGON2ID =
            "$argon2id$v=19$m=4096,t=2,p=1$c2FsdHNhbHRzYWx0MTIzNA$fV7cdiOkUbfs2wCxhW7//PPwCDwlxZpVlvw2QFwNNcA";

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void mosquitto20HashesAreVerified() {
        var hash = PasswordHash.parse(MOSQUITTO_2_0);
        assertInstanceOf(PasswordHash.Pbkdf2.class, hash);
        assertTrue(hash.matches(bytes("wonderland")));
        assertFalse(hash.matches(bytes("Wonderland")));
        assertFalse(hash.matches(bytes("")));
        assertEquals(MOSQUITTO_2_0, hash.encoded());
    }

    @Test
    void mosquitto1HashesAreVerified() {
        var hash = PasswordHash.parse(MOSQUITTO_1);
        assertTrue(hash.matches(bytes("c-secret")));
        assertFalse(hash.matches(bytes("c-secreT")));
    }

    @Test
    void argon2idHashesAreVerified() {
        var hash = PasswordHash.parse(ARGON2ID);
        assertTrue(hash.matches(bytes("wonderland")));
        assertFalse(hash.matches(bytes("wonderlan")));
        assertEquals(ARGON2ID, hash.encoded());
    }

    @Test
    void aTamperedHashMatchesNothing() {
        var tampered = MOSQUITTO_2_0.replace("$7$101$", "$7$102$");
        assertFalse(PasswordHash.parse(tampered).matches(bytes("wonderland")));
    }

    @Test
    void createdHashesAreMosquitto20Compatible() {
        var hash = assertInstanceOf(PasswordHash.Pbkdf2.class, PasswordHash.create("p\u00e4ss", new SecureRandom()));
        assertEquals(12, hash.salt().length, "Debian's Mosquitto 2.0.11 refuses longer salts");
        assertEquals(1_000, hash.iterations());
        assertEquals(64, hash.hash().length);
        assertTrue(hash.encoded().startsWith("$7$1000$"));
        var reread = PasswordHash.parse(hash.encoded());
        assertTrue(reread.matches(bytes("p\u00e4ss")), "a password is hashed as its UTF-8 bytes, as MQTT sends it");
        assertFalse(reread.matches("p\u00e4ss".getBytes(StandardCharsets.ISO_8859_1)));
        var other = assertInstanceOf(PasswordHash.Pbkdf2.class, PasswordHash.create("p\u00e4ss", new SecureRandom()));
        assertFalse(Base64.getEncoder().encodeToString(other.salt()).equals(Base64.getEncoder().encodeToString(hash.salt())),
                "every hash gets a fresh salt");
    }

    @Test
    void unreadableHashesSayWhatIsWrongWithoutTheirContent() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PasswordHash.parse("plaintext")).getMessage().contains("$7$"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PasswordHash.parse("$5$abc$def")).getMessage().contains("unknown hash type $5$"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PasswordHash.parse("$7$many$c2FsdA==$aGFzaA==")).getMessage().contains("not a number"));
        var notBase64 = assertThrows(IllegalArgumentException.class, () -> PasswordHash.parse("$6$!!secret!!$aGFzaA=="));
        assertFalse(notBase64.getMessage().contains("secret"));
        assertThrows(IllegalArgumentException.class, () -> PasswordHash.parse("$argon2id$v=19$m=99999999,t=1,p=1$c2FsdA$aGFzaA"));
    }
}
