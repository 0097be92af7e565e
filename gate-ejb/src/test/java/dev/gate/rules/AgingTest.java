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
    void aGuardNeedsAPositiveWaitAndAClassAboveTheLowest() {
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new Aging(Duration.ZERO, CallClass.MANUAL.rank())).getMessage().contains("positive"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new Aging(Duration.ofSeconds(-1), CallClass.MANUAL.rank())).getMessage().contains("positive"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new Aging(Duration.ofSeconds(60), CallClass.BACKFILL.rank())).getMessage()
                .contains("lifts nobody"));
        assertThrows(IllegalArgumentException.class, () -> new Aging(Duration.ofSeconds(60), -1));
        assertEquals("after PT1M ranked as rank 2", new Aging(Duration.ofMinutes(1), CallClass.SCHEDULED.rank())
                .toString());
    }

    @Test
    void theLowestRankIsTheLowestClass() {
        assertEquals(CallClass.BACKFILL.rank(), Aging.LOWEST_RANK);
        assertEquals(CallClass.values().length - 1, Aging.LOWEST_RANK);
    }
}
