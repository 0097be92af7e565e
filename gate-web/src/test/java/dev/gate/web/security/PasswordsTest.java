package dev.gate.web.security;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Hashes at OWASP's count, with their parameters; older ones still verify and are known as outdated. */
class PasswordsTest {

    private final Passwords today = new Passwords();

    @Test
    void aHashCarriesItsParametersAndVerifiesOnlyItsPassword() {
        String hash = today.hash("right horse battery");
        String[] parts = hash.split(":");
        assertEquals("PBKDF2WithHmacSHA256", parts[0]);
        assertEquals("600000", parts[1]);
        assertEquals(32, java.util.Base64.getDecoder().decode(parts[2]).length);
        assertTrue(today.matches("right horse battery", hash));
        assertFalse(today.matches("wrong horse battery", hash));
        assertFalse(today.matches("", hash), "an empty password matches nothing (and throws nothing)");
        assertFalse(today.outdated(hash));
    }

    @Test
    void aHashOfTheEarlierCountVerifiesByItsOwnCountAndIsOutdated() {
        String old = new Passwords(10_000).hash("web-password");
        assertTrue(today.matches("web-password", old));
        assertTrue(today.outdated(old));
    }

    @Test
    void aHashOfJakartaSecuritysFormatFromAnEarlierVersionStillVerifies() {
        // made by WildFly's Pbkdf2PasswordHash (PBKDF2WithHmacSHA256, 10,000 iterations, 32-byte salt) for "ops"
        String soteria = SOTERIA_OPS;
        assertTrue(today.matches("ops", soteria));
        assertFalse(today.matches("opz", soteria));
        assertTrue(today.outdated(soteria));
    }

    @Test
    void anUnreadableHashMatchesNothingAndIsOutdated() {
        assertFalse(today.matches("x", "plain-text"));
        assertFalse(today.matches("x", "PBKDF2WithHmacSHA256:many:AAAA:AAAA"));
        assertTrue(today.outdated("plain-text"));
    }

    static final String SOTERIA_OPS =
            "PBKDF2WithHmacSHA256:10000:rWOedY45qKYYLzr6FfoCU/nRLB77xroo14yci8ui5hY=:6bahDzbWEdPuzH8u+qPp00BqjbcpQQy25tA29bZgtvE=";
}
