package dev.gate.rules;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** AIMD on a limit's calls per window: cut by a tenth per signal, raised slowly while no signal comes. */
class AdaptiveRateTest {

    private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");
    private final AdaptiveRate rate = new AdaptiveRate(20, Duration.ofSeconds(1));

    @Test
    void neverCutItRunsAtTheDeclaredRate() {
        assertEquals(20, rate.effective(null, null, T0));
    }

    @Test
    void aSignalCutsToNinetyPercentAtMostOnceAWindowAndNeverBelowATenth() {
        assertEquals(18, rate.afterSignal(20));
        assertEquals(16, rate.afterSignal(18));
        assertEquals(2, rate.afterSignal(2), "a tenth of the declared calls is the floor");
        assertTrue(rate.mayCut(null, T0));
        assertFalse(rate.mayCut(T0, T0.plusMillis(999)), "the signals of one overload are one cut");
        assertTrue(rate.mayCut(T0, T0.plusSeconds(1)));
    }

    @Test
    void tenWindowsWithoutASignalRaiseItByTwoPercentUpToTheDeclaredRate() {
        assertEquals(14, rate.effective(14, T0, T0.plusSeconds(9)));
        assertEquals(15, rate.effective(14, T0, T0.plusSeconds(10)));
        assertEquals(17, rate.effective(14, T0, T0.plusSeconds(35)));
        assertEquals(20, rate.effective(14, T0, T0.plusSeconds(3_600)), "never above the declared rate");
        assertEquals(12, new AdaptiveRate(600, Duration.ofMinutes(1)).step(), "2% of 600");
    }

    @Test
    void aVendorThatAllowsSeventyPercentIsFoundAndHeldNearIt() {
        // a vendor that signals whenever the rate is above 14 of 20: the rate settles within a tenth of 14
        Integer cutTo = null;
        Instant cutAt = null;
        long sum = 0;
        long signals = 0;
        for (int second = 0; second < 600; second++) {
            Instant now = T0.plusSeconds(second);
            int effective = rate.effective(cutTo, cutAt, now);
            if (effective > 14 && rate.mayCut(cutAt, now)) {
                cutTo = rate.afterSignal(effective);
                cutAt = now;
                signals++;
            }
            if (second >= 60) {
                sum += rate.effective(cutTo, cutAt, now);
            }
        }
        double average = sum / 540.0;
        assertTrue(Math.abs(average - 14) <= 1.4, "settled near 14: " + average);
        assertTrue(signals <= 40, "a signal every 15 s or so once settled, not every window: " + signals);
    }

    @Test
    void aRuleOfABillionCallsIsCutByATenthNotWrappedAroundAnInt() {
        AdaptiveRate rate = new AdaptiveRate(1_000_000_000, Duration.ofDays(1));
        assertEquals(900_000_000, rate.afterSignal(1_000_000_000));
        assertEquals(810_000_000, rate.afterSignal(900_000_000));
        assertEquals(20_000_000, rate.step());
    }
}
