package dev.gate.web.security;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Guessing slows down per account and address, and per address; nobody else is held for an attacker's failures. */
class FailedSignInsTest {

    private long now = 5_000_000_000L;
    private final FailedSignIns failures = new FailedSignIns(() -> now);

    @Test
    void theFifthFailureWithinAMinuteHoldsThatAddressForThatAccountOnly() {
        for (int i = 1; i < FailedSignIns.PER_ACCOUNT; i++) {
            assertEquals(Optional.empty(), failures.failed("ops", "10.0.0.9", false), "failure " + i);
            assertEquals(Optional.empty(), failures.holdFor("ops", "10.0.0.9"));
        }
        Optional<FailedSignIns.Pause> pause = failures.failed("ops", "10.0.0.9", false);
        assertEquals(Optional.of(new FailedSignIns.Pause("ops", "10.0.0.9", FailedSignIns.FIRST_PAUSE)), pause);
        assertEquals(Optional.of(FailedSignIns.FIRST_PAUSE), failures.holdFor("ops", "10.0.0.9"));
        assertEquals(Optional.empty(), failures.holdFor("ops", "10.0.0.7"), "the right owner elsewhere is not held");
        assertEquals(Optional.empty(), failures.holdFor("web", "10.0.0.9"), "another account from there is not held");
        now += FailedSignIns.FIRST_PAUSE.toNanos();
        assertEquals(Optional.empty(), failures.holdFor("ops", "10.0.0.9"));
    }

    @Test
    void failuresSpreadOverMoreThanAMinuteHoldNobody() {
        for (int i = 0; i < 20; i++) {
            assertEquals(Optional.empty(), failures.failed("ops", "10.0.0.9", false));
            now += Duration.ofSeconds(16).toNanos();
        }
    }

    @Test
    void eachNewBurstDoublesThePauseUpToTheCapAndQuietForgivesIt() {
        Duration expected = FailedSignIns.FIRST_PAUSE;
        for (int burst = 0; burst < 12; burst++) {
            Optional<FailedSignIns.Pause> pause = Optional.empty();
            for (int i = 0; i < FailedSignIns.PER_ACCOUNT; i++) {
                pause = failures.failed("ops", "10.0.0.9", false);
            }
            assertEquals(expected, pause.orElseThrow().length(), "burst " + burst);
            now += expected.toNanos();
            expected = expected.multipliedBy(2).compareTo(FailedSignIns.LONGEST_PAUSE) > 0
                    ? FailedSignIns.LONGEST_PAUSE : expected.multipliedBy(2);
        }
        assertEquals(FailedSignIns.LONGEST_PAUSE, expected);
        now += FailedSignIns.FORGIVEN_AFTER.toNanos() + 1;
        Optional<FailedSignIns.Pause> pause = Optional.empty();
        for (int i = 0; i < FailedSignIns.PER_ACCOUNT; i++) {
            pause = failures.failed("ops", "10.0.0.9", false);
        }
        assertEquals(FailedSignIns.FIRST_PAUSE, pause.orElseThrow().length());
    }

    @Test
    void aSuccessForgetsThatAccountsFailuresFromThatAddress() {
        for (int i = 1; i < FailedSignIns.PER_ACCOUNT; i++) {
            failures.failed("ops", "10.0.0.9", false);
        }
        failures.succeeded("ops", "10.0.0.9");
        assertEquals(Optional.empty(), failures.failed("ops", "10.0.0.9", false));
    }

    @Test
    void oneAddressTryingManyNamesIsHeldForAllOfThem() {
        Optional<FailedSignIns.Pause> pause = Optional.empty();
        for (int i = 0; i < FailedSignIns.PER_ADDRESS; i++) {
            pause = failures.failed("name-" + i, "10.0.0.9", true);
        }
        assertEquals(Optional.of(new FailedSignIns.Pause(null, "10.0.0.9", FailedSignIns.FIRST_PAUSE)), pause);
        assertTrue(failures.holdFor("anyone", "10.0.0.9").isPresent());
        assertEquals(Optional.empty(), failures.holdFor("anyone", "10.0.0.7"));
    }

    @Test
    void aProgramSendingAnOldPasswordHoldsOnlyItselfNotItsNeighbours() {
        for (int i = 0; i < FailedSignIns.PER_ADDRESS * 3; i++) {
            failures.failed("worker", "10.0.0.9", false);
        }
        assertTrue(failures.holdFor("worker", "10.0.0.9").isPresent());
        assertEquals(Optional.empty(), failures.holdFor("web", "10.0.0.9"), "another program on that host");
    }

    @Test
    void noInputGrowsItPastItsBound() {
        for (int i = 0; i < FailedSignIns.MOST_KEYS * 2; i++) {
            failures.failed("name-" + i, "10.1." + (i / 250) + "." + (i % 250), true);
        }
        assertTrue(failures.keys() <= FailedSignIns.MOST_KEYS, failures.keys() + " keys");
        now += FailedSignIns.FORGIVEN_AFTER.toNanos() + 1;
        failures.failed("late", "10.9.9.9", false);
        assertTrue(failures.keys() <= 3, "forgotten keys are swept when the bound is reached: " + failures.keys());
    }
}
