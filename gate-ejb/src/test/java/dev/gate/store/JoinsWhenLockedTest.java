package dev.gate.store;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The free line's memo of limits not to queue on: it answers for what it noted, and never grows past its bound. */
class JoinsWhenLockedTest {

    @Test
    void aNotedLimitJoinsAnotherDoesNot() {
        JoinsWhenLocked memo = new JoinsWhenLocked();
        assertFalse(memo.joins("vendor"));
        memo.noted("vendor");
        assertTrue(memo.joins("vendor"), "for a second after it was noted");
        assertFalse(memo.joins("other"));
    }

    @Test
    void manyContendedLimitsNeverGrowItPastItsBound() {
        JoinsWhenLocked memo = new JoinsWhenLocked();
        for (int i = 0; i < 3 * JoinsWhenLocked.MAX; i++) {
            memo.noted("key~" + i);
            assertTrue(memo.size() <= JoinsWhenLocked.MAX);
        }
    }
}
