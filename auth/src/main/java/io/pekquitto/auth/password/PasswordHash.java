package io.pekquitto.auth.password;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import org.bouncycastle.crypto.digests.SHA512Digest;
import org.bouncycastle.crypto.generators.Argon2BytesGenerator;
import org.bouncycastle.crypto.generators.PKCS5S2ParametersGenerator;
import org.bouncycastle.crypto.params.Argon2Parameters;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * The hash field of a password file line, in the forms Mosquitto writes: {@code $7$} (PBKDF2-HMAC-SHA512,
 * Mosquitto 2.0 and 2.1), {@code $6$} (salted SHA-512, Mosquitto 1.x) and {@code $argon2id$} (Mosquitto 2.1
 * built with libargon2). Every check compares in constant time.
 */
public sealed interface PasswordHash {
    /** What {@link #create} writes: Debian's Mosquitto 2.0.11 refuses salts longer than 12 bytes. */
    int SALT_BYTES = 12;
    /** Mosquitto 2.0's mosquitto_passwd writes 101; ten times that is still about a millisecond. */
    int ITERATIONS = 1_000;

    /** Whether {@code password} (the CONNECT's bytes, as sent) is the one hashed here. */
    boolean matches(byte[] password);

    /** The field as a password file holds it. */
    String encoded();

    /** A fresh {@code $7$} hash of {@code password}, with a random 12-byte salt and 1,000 iterations. */
    static PasswordHash create(String password, SecureRandom random) {
        var salt = new byte[SALT_BYTES];
        random.nextBytes(salt);
        var bytes = password.getBytes(StandardCharsets.UTF_8);
        return new Pbkdf2(ITERATIONS, salt, Pbkdf2.derive(bytes, salt, ITERATIONS, Pbkdf2.KEY_BYTES));
    }

    /**
     * Reads a hash field.
     *
     * @throws IllegalArgumentException saying what is wrong, without the field's content
     */
    static PasswordHash parse(String field) {
        var parts = field.split("\\$", -1);
        if (parts.length < 2 || !parts[0].isEmpty()) {
            throw new IllegalArgumentException("not a hash written by mosquitto_passwd (it must start with $7$, $6$ or $argon2id$)");
        }
        return switch (parts[1]) {
            case "7" -> Pbkdf2.parse(parts);
            case "6" -> {
                if (parts.length != 4) throw new IllegalArgumentException("a $6$ hash is $6$SALT$HASH");
                yield new Sha512(base64(parts[2], "salt"), base64(parts[3], "hash"));
            }
            case "argon2id" -> Argon2id.parse(parts);
            default -> throw new IllegalArgumentException("unknown hash type $" + parts[1]
                    + "$ (pekquitto reads $7$, $6$ and $argon2id$)");
        };
    }

    private static byte[] base64(String text, String what) {
        try {
            return Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the " + what + " is not Base64");
        }
    }

    /** {@code $7$ITERATIONS$SALT$HASH}: PBKDF2-HMAC-SHA512 over the password and the decoded salt. */
    record Pbkdf2(int iterations, byte[] salt, byte[] hash) implements PasswordHash {
        static final int KEY_BYTES = 64;

        static Pbkdf2 parse(String[] parts) {
            if (parts.length != 5) throw new IllegalArgumentException("a $7$ hash is $7$ITERATIONS$SALT$HASH");
            int iterations;
            try {
                iterations = Integer.parseInt(parts[2]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("the iteration count of a $7$ hash is not a number");
            }
            if (iterations < 1) throw new IllegalArgumentException("the iteration count of a $7$ hash must be positive");
            var hash = base64(parts[4], "hash");
            if (hash.length == 0) throw new IllegalArgumentException("the hash is empty");
            return new Pbkdf2(iterations, base64(parts[3], "salt"), hash);
        }

        /** Bouncy Castle's PBKDF2 takes the password's bytes as they are; the JDK's would re-encode chars as UTF-8. */
        static byte[] derive(byte[] password, byte[] salt, int iterations, int keyBytes) {
            var generator = new PKCS5S2ParametersGenerator(new SHA512Digest());
            generator.init(password, salt, iterations);
            return ((KeyParameter) generator.generateDerivedParameters(keyBytes * 8)).getKey();
        }

        @Override
        public boolean matches(byte[] password) {
            return MessageDigest.isEqual(hash, derive(password, salt, iterations, hash.length));
        }

        @Override
        public String encoded() {
            var base64 = Base64.getEncoder();
            return "$7$" + iterations + "$" + base64.encodeToString(salt) + "$" + base64.encodeToString(hash);
        }
    }

    /** {@code $6$SALT$HASH}: SHA-512 over the password, then the decoded salt. */
    record Sha512(byte[] salt, byte[] hash) implements PasswordHash {
        @Override
        public boolean matches(byte[] password) {
            try {
                var digest = MessageDigest.getInstance("SHA-512");
                digest.update(password);
                digest.update(salt);
                return MessageDigest.isEqual(hash, digest.digest());
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("SHA-512 is part of every Java", e);
            }
        }

        @Override
        public String encoded() {
            var base64 = Base64.getEncoder();
            return "$6$" + base64.encodeToString(salt) + "$" + base64.encodeToString(hash);
        }
    }

    /** {@code $argon2id$v=19$m=KIB,t=PASSES,p=LANES$SALT$HASH}, the PHC format, Base64 without padding. */
    record Argon2id(int version, int memoryKib, int passes, int lanes, byte[] salt, byte[] hash) implements PasswordHash {
        /** 1 GiB: a larger memory cost in a file would let one CONNECT take the heap. */
        private static final int MAX_MEMORY_KIB = 1 << 20;

        static Argon2id parse(String[] parts) {
            if (parts.length != 6 || !parts[2].startsWith("v=")) {
                throw new IllegalArgumentException("an $argon2id$ hash is $argon2id$v=19$m=M,t=T,p=P$SALT$HASH");
            }
            try {
                int version = Integer.parseInt(parts[2].substring(2));
                int memory = -1;
                int passes = -1;
                int lanes = -1;
                for (var parameter : parts[3].split(",")) {
                    var pair = parameter.split("=", 2);
                    int value = Integer.parseInt(pair[1]);
                    switch (pair[0]) {
                        case "m" -> memory = value;
                        case "t" -> passes = value;
                        case "p" -> lanes = value;
                        default -> throw new IllegalArgumentException("unknown argon2 parameter " + pair[0]);
                    }
                }
                if (memory < 8 || memory > MAX_MEMORY_KIB || passes < 1 || lanes < 1 || lanes > 255) {
                    throw new IllegalArgumentException("argon2 parameters out of range: m=" + memory + ",t=" + passes + ",p=" + lanes);
                }
                var decoder = Base64.getDecoder();  // accepts input without padding
                return new Argon2id(version, memory, passes, lanes, decoder.decode(parts[4]), decoder.decode(parts[5]));
            } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
                throw new IllegalArgumentException("the parameters of an $argon2id$ hash cannot be read");
            }
        }

        @Override
        public boolean matches(byte[] password) {
            var parameters = new Argon2Parameters.Builder(Argon2Parameters.ARGON2_id).withVersion(version)
                    .withMemoryAsKB(memoryKib).withIterations(passes).withParallelism(lanes).withSalt(salt).build();
            var generator = new Argon2BytesGenerator();
            generator.init(parameters);
            var derived = new byte[hash.length];
            generator.generateBytes(password, derived);
            return MessageDigest.isEqual(hash, derived);
        }

        @Override
        public String encoded() {
            var base64 = Base64.getEncoder().withoutPadding();
            return "$argon2id$v=" + version + "$m=" + memoryKib + ",t=" + passes + ",p=" + lanes + "$"
                    + base64.encodeToString(salt) + "$" + base64.encodeToString(hash);
        }
    }
}
