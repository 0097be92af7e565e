package dev.gate.rules;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The earliest a waiting call can be granted, as a deadline is judged by: a gap per unit ahead (not per call), not
 * before a vendor's count the units would pass resets, not before the vendor's block that can hold them.
 */
class WaitEstimateTest {

    private static final Instant NOW = Instant.parse("2026-12-04T12:00:00Z");
    /** 10 a second: a gap of 100 ms. */
    private static final LimitRules TEN = LimitRules.of(Pace.of(10, 1000));
    /** 1,000 a second: a gap of 1 ms. */
    private static final LimitRules THOUSAND = LimitRules.of(Pace.of(1000, 1000));
    private static final Optional<Instant> NONE = Optional.empty();

    @Test
    void eachUnitAheadIsAGapSoACostlyCallAheadCountsItsUnits() {
        assertEquals(NOW.plusMillis(500), WaitEstimate.grantAt(NOW, NOW, NONE, null, 5, Cost.ONE, TEN, null, 0, List.of()),
                "five calls of one unit ahead");
        assertEquals(NOW.plusMillis(1_400), WaitEstimate.grantAt(NOW, NOW, NONE, null, 2 + 12, Cost.ONE, TEN, null, 0,
                List.of()), "one call ahead of cost 13 and one of 1: fourteen units");
        assertEquals(NOW.plusSeconds(3).plusMillis(200), WaitEstimate.grantAt(NOW, NOW.minusSeconds(1),
                NONE, NOW.plusSeconds(3), 2, Cost.ONE, TEN, null, 0, List.of()), "after the cool-down's end");
    }

    @Test
    void aVendorsCountTheUnitsWouldPassHoldsTheEstimateToItsReset() {
        VendorCount threeLeft = new VendorCount(10, 3, NOW.plusSeconds(40));
        assertEquals(NOW.plusMillis(200), WaitEstimate.grantAt(NOW, NOW, NONE, null, 2, Cost.ONE, TEN, threeLeft, 10,
                List.of()), "two ahead and this one: three, what the vendor said is left");
        assertEquals(NOW.plusSeconds(40), WaitEstimate.grantAt(NOW, NOW, NONE, null, 3, Cost.ONE, TEN,
                threeLeft, 10, List.of()), "the three ahead go before the reset: a fourth unit goes at it");
        assertEquals(NOW.plusSeconds(40).plusMillis(200), WaitEstimate.grantAt(NOW, NOW, NONE, null, 5, Cost.ONE, TEN,
                threeLeft, 10, List.of()), "two of the five ahead wait for the reset too: a gap each after it");
    }

    /**
     * A key under a parent: the parent's next slot is a moment nothing goes before, not the key's beat; the key's own
     * burst still lets its units go back to back once it comes (random histories, seed 105153: the parent's slot taken
     * as the key's put the estimate a key's gap, 1.6 s, after the call's grant).
     */
    @Test
    void aParentsNextSlotBoundsAKeyWithoutTakingItsBurst() {
        LimitRules key = new LimitRules(List.of(Pace.of(2, 3174)), Duration.ZERO, 2);
        Instant parentSlot = NOW.plusMillis(91);
        assertEquals(parentSlot, WaitEstimate.grantAt(NOW, NOW.minusSeconds(60), NONE, parentSlot, 1, Cost.ONE, key,
                null, 0, List.of()), "the call ahead and this one go back to back once the parent's slot comes");
        assertEquals(parentSlot.plus(key.gap()), WaitEstimate.grantAt(NOW, NOW.minusSeconds(60), NONE, parentSlot, 2,
                Cost.ONE, key, null, 0, List.of()), "a third unit waits a key's gap");
    }

    /**
     * The units ahead that the vendor's count still leaves room for go before its reset; only the rest, and the
     * call's own, wait for it (random histories, seed 104013: 7 a second, the vendor said 2 left, one unit sent
     * since and one call ahead; the call was granted at the reset, 170 ms (a gap) before its estimate, which put the
     * call ahead after the reset too).
     */
    @Test
    void theUnitsAheadThatTheVendorsCountLeavesRoomForGoBeforeItsReset() {
        LimitRules seven = LimitRules.of(Pace.of(7, 1187));
        Instant reset = NOW.plusMillis(790);
        VendorCount twoLeft = new VendorCount(20, 2, reset);
        assertEquals(reset, WaitEstimate.grantAt(NOW, NOW.minusSeconds(1), NONE, null, 1, Cost.ONE, seven, twoLeft,
                21, List.of()), "the call ahead takes the last unit left; this one goes at the reset");
        assertEquals(reset.plus(seven.gap()), WaitEstimate.grantAt(NOW, NOW.minusSeconds(1), NONE, null, 1, Cost.ONE,
                seven, twoLeft, 22, List.of()), "none left: the call ahead goes at the reset, this one a gap later");
    }

    @Test
    void unitsThatDoNotFitTheCurrentBlockAreNotGrantedBeforeTheBlockThatHoldsThem() {
        CalendarBlocks days = new CalendarBlocks(Duration.ofDays(1), ZoneId.of("UTC"), LocalTime.MIDNIGHT);
        Pace daily = Pace.aligned(100, days);
        Duration gap = daily.gap();
        Instant tomorrow = Instant.parse("2026-12-05T00:00:00Z");
        assertEquals(NOW.plus(gap.multipliedBy(4)), WaitEstimate.grantAt(NOW, NOW, NONE, null, 4, Cost.ONE, LimitRules.of(daily), null, 0,
                List.of(new WaitEstimate.BlockUse(daily, 95))), "95 used, 4 ahead, this one: the 100th today");
        assertEquals(tomorrow, WaitEstimate.grantAt(NOW, NOW, NONE, null, 5, Cost.ONE, THOUSAND, null, 0,
                List.of(new WaitEstimate.BlockUse(daily, 95))), "the 101st: not before tomorrow");
        assertEquals(tomorrow.plus(Duration.ofDays(1)), WaitEstimate.grantAt(NOW, NOW, NONE, null, 250, Cost.ONE,
                THOUSAND, null, 0, List.of(new WaitEstimate.BlockUse(daily, 0))),
                "the 251st unit from today's first: the day after tomorrow (201-300)");
        assertEquals(tomorrow, WaitEstimate.grantAt(NOW, NOW, NONE, null, 0, Cost.of(30), THOUSAND, null, 0,
                List.of(new WaitEstimate.BlockUse(daily, 80))), "a call of 30 units with 20 left today: tomorrow");
    }

    /**
     * A grant turns the beat at the end of the last send's block (a new block's first send is due at once): so does
     * the estimate, for the slot as written and for the units ahead (random histories, seed 90001: 7 a second on
     * blocks, spaced 426 ms; a call of cost 3 put the slot 1.3 s ahead, the call was granted at the next second, 0.7 s
     * before the estimate, which a deadline would have been refused by).
     */
    @Test
    void aNewBlockTurnsTheBeatForTheSlotAndForTheUnitsAhead() {
        CalendarBlocks seconds = new CalendarBlocks(Duration.ofSeconds(1), ZoneId.of("UTC"), LocalTime.MIDNIGHT);
        LimitRules rules = new LimitRules(List.of(Pace.aligned(7, seconds)), Duration.ofMillis(426));
        Instant now = NOW.plusMillis(54);
        Optional<Instant> last = Optional.of(NOW);
        Instant slot = NOW.plusMillis(1_283);
        Instant nextSecond = NOW.plusSeconds(1);
        assertEquals(nextSecond, WaitEstimate.grantAt(now, slot, last, null, 0, Cost.ONE, rules, null, 0, List.of()),
                "the head: at the next block's start, not at the slot");
        assertEquals(nextSecond.plusMillis(426), WaitEstimate.grantAt(now, slot, last, null, 1, Cost.ONE, rules, null,
                0, List.of()), "one ahead: a gap after it");
        LimitRules fast = new LimitRules(List.of(Pace.aligned(7, seconds)), Duration.ZERO);
        assertEquals(nextSecond, WaitEstimate.grantAt(now, now, last, null, 12, Cost.ONE, fast, null, 0, List.of()),
                "twelve ahead, a gap each (1/7 s): the block ends after the seventh and the beat starts again there "
                + "(at the earliest: a costly call ahead may be the one the turn comes after)");
    }

    /** Idle time fills the burst allowance: that many units go back to back, then a gap each, never closer than the
     * minimum spacing. */
    @Test
    void theBurstLetsUnitsAheadGoBackToBack() {
        LimitRules burst = new LimitRules(List.of(Pace.of(10, 1000)), Duration.ZERO, 3);
        Instant idle = NOW.minusSeconds(10);
        assertEquals(NOW, WaitEstimate.grantAt(NOW, idle, NONE, null, 2, Cost.ONE, burst, null, 0, List.of()),
                "two ahead and this one: the burst of three");
        assertEquals(NOW.plusMillis(200), WaitEstimate.grantAt(NOW, idle, NONE, null, 4, Cost.ONE, burst, null, 0,
                List.of()), "four ahead: two more gaps");
        assertEquals(NOW.plusMillis(250), WaitEstimate.grantAt(NOW, NOW.plusMillis(50), NONE, null, 2, Cost.ONE,
                burst, null, 0, List.of()), "an allowance used up: the slot, and a gap each");
        assertEquals(NOW.plusMillis(2_000), WaitEstimate.grantAt(NOW, idle, NONE, NOW.plusSeconds(2), 2, Cost.ONE,
                burst, null, 0, List.of()), "after a cool-down: the burst from its end");
        LimitRules spaced = new LimitRules(List.of(Pace.of(10, 1000)), Duration.ofMillis(30), 3);
        assertEquals(NOW.plusMillis(60), WaitEstimate.grantAt(NOW, idle, NONE, null, 2, Cost.ONE, spaced, null, 0,
                List.of()), "the burst keeps the spacing");
    }
}
