package dev.gate.rules;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LimitKeyTest {

    @Test
    void aPlainKeyIsReadableInItsLimitsName() {
        assertEquals("user-api~user-42", new LimitKey("user-api", "user-42").limitName());
        assertEquals("user-api~a@b.c:1", new LimitKey("user-api", "a@b.c:1").limitName());
        assertEquals("user-api", LimitKey.templateOf("user-api~user-42"));
        assertEquals("vendor", LimitKey.templateOf("vendor"));
        assertTrue(LimitKey.isKeyName("user-api~user-42"));
    }

    @Test
    void anyOtherKeyHasAHashedNameThatFitsAndStaysTheSame() {
        String odd = "shop/Ünïcode key";
        String name = new LimitKey("user-api", odd).limitName();
        assertTrue(name.startsWith("user-api~="), name);
        assertEquals(64, name.length());
        assertEquals(name, new LimitKey("user-api", odd).limitName());
        assertNotEquals(name, new LimitKey("user-api", odd + "!").limitName());
        String longest = "t".repeat(LimitKey.TEMPLATE_MAX);
        assertEquals(64, new LimitKey(longest, "x".repeat(200)).limitName().length());
    }

    @Test
    void badKeysAndTemplatesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new LimitKey("user-api", ""));
        assertThrows(IllegalArgumentException.class, () -> new LimitKey("user-api", "a\nb"));
        assertThrows(IllegalArgumentException.class, () -> new LimitKey("user-api", "k".repeat(201)));
        assertThrows(IllegalArgumentException.class, () -> new LimitKey("t".repeat(41), "k"));
        assertThrows(IllegalArgumentException.class, () -> new LimitKey("bad name", "k"));
    }
}
