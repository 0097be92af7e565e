package dev.gate.web.security;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.security.enterprise.identitystore.Pbkdf2PasswordHash;

import java.util.Map;

/** PBKDF2 (HMAC-SHA256, 32-byte salt) hashes of passwords, from the container's Jakarta Security. */
@ApplicationScoped
public class Passwords {

    @Inject
    Pbkdf2PasswordHash pbkdf2;

    @PostConstruct
    void configure() {
        pbkdf2.initialize(Map.of(
                "Pbkdf2PasswordHash.Algorithm", "PBKDF2WithHmacSHA256",
                "Pbkdf2PasswordHash.Iterations", "10000",
                "Pbkdf2PasswordHash.SaltSizeBytes", "32"));
    }

    public String hash(String password) {
        return pbkdf2.generate(password.toCharArray());
    }

    public boolean matches(String password, String hash) {
        return pbkdf2.verify(password.toCharArray(), hash);
    }
}
