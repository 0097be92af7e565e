package dev.gate.rules;

import dev.gate.api.CallClass;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A starvation guard an operator declares: a positive wait, and a class that lifts someone. */
class AgingTest {

    @Test
    void aGuardNeedsAPositiveWaitAndAClassAboveBackfill() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new Aging(Duration.ZERO, CallClass.MANUAL))
                .getMessage().contains("positive"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new Aging(Duration.ofSeconds(-1), CallClass.MANUAL)).getMessage().contains("positive"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new Aging(Duration.ofSeconds(60), CallClass.BACKFILL)).getMessage().contains("BACKFILL"));
        assertEquals("after PT1M ranked as SCHEDULED", new Aging(Duration.ofMinutes(1), CallClass.SCHEDULED).toString());
    }
}
