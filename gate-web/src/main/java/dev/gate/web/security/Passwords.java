package dev.gate.web.security;

import jakarta.enterprise.context.ApplicationScoped;

import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * PBKDF2-HMAC-SHA256 hashes of passwords at OWASP's count (600,000 iterations, 32-byte salt and key), stored with
 * their parameters beside them as {@code PBKDF2WithHmacSHA256:iterations:salt:key} (Base64; the format of Jakarta
 * Security's {@code Pbkdf2PasswordHash}, so hashes made by earlier versions of the gate still verify). A hash made
 * with fewer iterations verifies by its own count and {@linkplain #outdated is outdated}: the next successful sign-in
 * replaces it.
 */
@ApplicationScoped
public class Passwords {

    /** OWASP's Password Storage Cheat Sheet, PBKDF2-HMAC-SHA256 (2023 onwards). */
    public static final int ITERATIONS = 600_000;

    private static final String ALGORITHM = "PBKDF2WithHmacSHA256";
    private static final int SALT_BYTES = 32;
    private static final int KEY_BYTES = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final int iterations;
    // verified against when a name has no account, so an unknown name costs what a known one does
    private volatile String decoy;

    public Passwords() {
        this(ITERATIONS);
    }

    /** A weaker count: only for tests of the upgrade from an older hash. */
    Passwords(int iterations) {
        this.iterations = iterations;
    }

    public String hash(String password) {
        byte[] salt = new byte[SALT_BYTES];
        RANDOM.nextBytes(salt);
        Base64.Encoder b64 = Base64.getEncoder();
        return ALGORITHM + ":" + iterations + ":" + b64.encodeToString(salt) + ":"
                + b64.encodeToString(derive(password, salt, iterations, KEY_BYTES));
    }

    /** Whether the password is the one hashed; a hash this class cannot read matches nothing. */
    public boolean matches(String password, String hash) {
        Parsed parsed = Parsed.of(hash);
        if (parsed == null) {
            return false;
        }
        if (password.isEmpty()) { // the JDK's PBKDF2 takes no empty password; no account has one (AccountsResource)
            derive("\u0000", parsed.salt(), parsed.iterations(), parsed.key().length);
            return false;
        }
        return MessageDigest.isEqual(parsed.key(),
                derive(password, parsed.salt(), parsed.iterations(), parsed.key().length));
    }

    /** Spends what checking a password costs, for a name that has no account; never matches. */
    public void spendACheck(String password) {
        String d = decoy;
        if (d == null) {
            d = hash("\u0000 no account");
            decoy = d;
        }
        matches(password, d);
    }

    /** Whether the hash was made with weaker parameters than this class makes (or cannot be read). */
    public boolean outdated(String hash) {
        Parsed parsed = Parsed.of(hash);
        return parsed == null || parsed.iterations() < iterations || parsed.salt().length < SALT_BYTES
                || parsed.key().length < KEY_BYTES;
    }

    private record Parsed(int iterations, byte[] salt, byte[] key) {

        static Parsed of(String hash) {
            String[] parts = hash == null ? new String[0] : hash.split(":");
            if (parts.length != 4 || !parts[0].equals(ALGORITHM)) {
                return null;
            }
            try {
                int iterations = Integer.parseInt(parts[1]);
                byte[] salt = Base64.getDecoder().decode(parts[2]);
                byte[] key = Base64.getDecoder().decode(parts[3]);
                return iterations < 1 || key.length == 0 ? null : new Parsed(iterations, salt, key);
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
    }

    private static byte[] derive(String password, byte[] salt, int iterations, int keyBytes) {
        PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, keyBytes * 8);
        try {
            return SecretKeyFactory.getInstance(ALGORITHM).generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is part of every Java runtime", e);
        } finally {
            spec.clearPassword();
        }
    }
}
