package dev.gate.web.security;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Guessing slows down per name and address, and guessing names per address; nobody else is held for an attacker's
 * failures, nor a program for a neighbour's removed name.
 */
class FailedSignInsTest {

    private long now = 5_000_000_000L;
    private final FailedSignIns failures = new FailedSignIns(() -> now);

    /** The hold for the account's right password (as the digest stands in for it here). */
    private Optional<Duration> holdFor(String account, String address) {
        return failures.holdFor(account, address, account + ":right");
    }

    @Test
    void theFifthFailureWithinAMinuteHoldsThatAddressForThatAccountOnly() {
        for (int i = 1; i < FailedSignIns.PER_ACCOUNT; i++) {
            assertEquals(Optional.empty(), failures.failed("ops", "10.0.0.9", false), "failure " + i);
            assertEquals(Optional.empty(), holdFor("ops", "10.0.0.9"));
        }
        Optional<FailedSignIns.Pause> pause = failures.failed("ops", "10.0.0.9", false);
        assertEquals(Optional.of(new FailedSignIns.Pause("ops", "10.0.0.9", FailedSignIns.FIRST_PAUSE)), pause);
        assertEquals(Optional.of(FailedSignIns.FIRST_PAUSE), holdFor("ops", "10.0.0.9"));
        assertEquals(Optional.empty(), holdFor("ops", "10.0.0.7"), "the right owner elsewhere is not held");
        assertEquals(Optional.empty(), holdFor("web", "10.0.0.9"), "another account from there is not held");
        now += FailedSignIns.FIRST_PAUSE.toNanos();
        assertEquals(Optional.empty(), holdFor("ops", "10.0.0.9"));
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
        failures.succeeded("ops", "10.0.0.9", "ops:right");
        assertEquals(Optional.empty(), failures.failed("ops", "10.0.0.9", false));
    }

    @Test
    void oneAddressTryingManyNamesIsHeldForEveryoneButTheCredentialsThatSignedInThere() {
        failures.succeeded("web", "10.0.0.9", "web:right");
        for (int i = 1; i < FailedSignIns.PER_ADDRESS; i++) {
            assertEquals(Optional.empty(), failures.failed("name-" + i, "10.0.0.9", true));
            assertEquals(Optional.empty(), failures.failed("name-" + i, "10.0.0.9", true), "the same name again");
        }
        Optional<FailedSignIns.Pause> pause = failures.failed("name-last", "10.0.0.9", true);
        assertEquals(Optional.of(new FailedSignIns.Pause(null, "10.0.0.9", FailedSignIns.FIRST_PAUSE)), pause);
        assertEquals(Optional.of(FailedSignIns.FIRST_PAUSE), holdFor("anyone", "10.0.0.9"));
        assertEquals(Optional.of(FailedSignIns.FIRST_PAUSE), holdFor("worker", "10.0.0.9"),
                "credentials never seen to work from there are held as any guess");
        assertEquals(Optional.of(FailedSignIns.FIRST_PAUSE), failures.holdFor("web", "10.0.0.9", "web:guess"));
        assertEquals(Optional.empty(), holdFor("web", "10.0.0.9"), "the program already working there goes on");
        assertEquals(Optional.empty(), holdFor("anyone", "10.0.0.7"));
        now += FailedSignIns.FIRST_PAUSE.toNanos();
        assertEquals(Optional.empty(), holdFor("worker", "10.0.0.9"));
    }

    @Test
    void underTheHoldPasswordsTriedForANameProvenThereStopItsCredentialsPassingAndReadAsAnyOther() {
        failures.succeeded("web", "10.0.0.9", "web:right");
        for (int i = 0; i < FailedSignIns.PER_ADDRESS; i++) {
            failures.failed("name-" + i, "10.0.0.9", true);
        }
        for (int i = 0; i < FailedSignIns.PER_ACCOUNT; i++) {
            assertEquals(holdFor("nobody", "10.0.0.9"), failures.holdFor("web", "10.0.0.9", "web:guess-" + i),
                    "refused as any name is");
            now += 1_000_000L;
        }
        assertEquals(holdFor("nobody", "10.0.0.9"), holdFor("web", "10.0.0.9"),
                "five guesses: its own credentials no longer pass this hold");
        now += FailedSignIns.FIRST_PAUSE.toNanos();
        assertEquals(Optional.empty(), holdFor("web", "10.0.0.9"), "the hold over, it signs in");
        assertEquals(Optional.empty(), failures.holdFor("web", "10.0.0.9", "web:guess"),
                "and nothing tells its name from another's");
    }

    @Test
    void aProgramSendingAnOldPasswordHoldsOnlyItselfNotItsNeighbours() {
        for (int i = 0; i < FailedSignIns.PER_ADDRESS * 3; i++) {
            failures.failed("worker", "10.0.0.9", false);
        }
        assertTrue(holdFor("worker", "10.0.0.9").isPresent());
        assertEquals(Optional.empty(), holdFor("web", "10.0.0.9"), "another program on that host");
    }

    @Test
    void aProgramStillSendingARemovedAccountsNameHoldsOnlyItselfNotTheProgramsOnItsHost() {
        // its lease renewals arrive together: each passed the hold before the first of them failed
        for (int i = 0; i < FailedSignIns.PER_ADDRESS * 3; i++) {
            failures.failed("removed", "10.0.0.9", true);
        }
        assertTrue(holdFor("removed", "10.0.0.9").isPresent(), "the name that fails is held");
        assertEquals(Optional.empty(), holdFor("web", "10.0.0.9"), "another program on its host is not");
    }

    @Test
    void noInputGrowsItPastItsBound() {
        for (int i = 0; i < FailedSignIns.MOST_KEYS * 2; i++) {
            String address = "10.1." + (i / 250) + "." + (i % 250);
            failures.failed("name-" + i, address, true);
            failures.succeeded("web", address, "web:right");
        }
        assertTrue(failures.keys() <= FailedSignIns.MOST_KEYS, failures.keys() + " keys");
        assertTrue(failures.provenKeys() <= FailedSignIns.MOST_KEYS, failures.provenKeys() + " proven");
        now += FailedSignIns.PROVEN_FOR.toNanos() + 1;
        failures.failed("late", "10.9.9.9", false);
        failures.succeeded("late", "10.9.9.9", "late:right");
        assertTrue(failures.keys() <= 3, "forgotten keys are swept when the bound is reached: " + failures.keys());
        assertTrue(failures.provenKeys() <= 2, "and credentials not seen for a day: " + failures.provenKeys());
    }
}
