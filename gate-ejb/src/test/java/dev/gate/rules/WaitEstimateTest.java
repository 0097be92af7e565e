package dev.gate.rules;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The earliest a waiting call can be granted, as a deadline is judged by: a gap per unit ahead (not per call), not
 * before a vendor's count the units would pass resets, not before the vendor's block that can hold them.
 */
class WaitEstimateTest {

    private static final Instant NOW = Instant.parse("2026-12-04T12:00:00Z");
    private static final Duration GAP = Duration.ofMillis(100);

    @Test
    void eachUnitAheadIsAGapSoACostlyCallAheadCountsItsUnits() {
        assertEquals(NOW.plusMillis(500), WaitEstimate.grantAt(NOW, NOW, null, 5, Cost.ONE, GAP, null, 0, List.of()),
                "five calls of one unit ahead");
        assertEquals(NOW.plusMillis(1_400), WaitEstimate.grantAt(NOW, NOW, null, 2 + 12, Cost.ONE, GAP, null, 0,
                List.of()), "one call ahead of cost 13 and one of 1: fourteen units");
        assertEquals(NOW.plusSeconds(3).plusMillis(200), WaitEstimate.grantAt(NOW, NOW.minusSeconds(1),
                NOW.plusSeconds(3), 2, Cost.ONE, GAP, null, 0, List.of()), "after the cool-down's end");
    }

    @Test
    void aVendorsCountTheUnitsWouldPassHoldsTheEstimateToItsReset() {
        VendorCount threeLeft = new VendorCount(10, 3, NOW.plusSeconds(40));
        assertEquals(NOW.plusMillis(200), WaitEstimate.grantAt(NOW, NOW, null, 2, Cost.ONE, GAP, threeLeft, 10,
                List.of()), "two ahead and this one: three, what the vendor said is left");
        assertEquals(NOW.plusSeconds(40).plusMillis(300), WaitEstimate.grantAt(NOW, NOW, null, 3, Cost.ONE, GAP,
                threeLeft, 10, List.of()), "a fourth unit waits for the vendor's reset");
    }

    @Test
    void unitsThatDoNotFitTheCurrentBlockAreNotGrantedBeforeTheBlockThatHoldsThem() {
        CalendarBlocks days = new CalendarBlocks(Duration.ofDays(1), ZoneId.of("UTC"), LocalTime.MIDNIGHT);
        Pace daily = Pace.aligned(100, days);
        Duration gap = daily.gap();
        Instant tomorrow = Instant.parse("2026-12-05T00:00:00Z");
        assertEquals(NOW.plus(gap.multipliedBy(4)), WaitEstimate.grantAt(NOW, NOW, null, 4, Cost.ONE, gap, null, 0,
                List.of(new WaitEstimate.BlockUse(daily, 95))), "95 used, 4 ahead, this one: the 100th today");
        assertEquals(tomorrow, WaitEstimate.grantAt(NOW, NOW, null, 5, Cost.ONE, Duration.ofMillis(1), null, 0,
                List.of(new WaitEstimate.BlockUse(daily, 95))), "the 101st: not before tomorrow");
        assertEquals(tomorrow.plus(Duration.ofDays(1)), WaitEstimate.grantAt(NOW, NOW, null, 250, Cost.ONE,
                Duration.ofMillis(1), null, 0, List.of(new WaitEstimate.BlockUse(daily, 0))),
                "the 251st unit from today's first: the day after tomorrow (201-300)");
        assertEquals(tomorrow, WaitEstimate.grantAt(NOW, NOW, null, 0, Cost.of(30), Duration.ofMillis(1), null, 0,
                List.of(new WaitEstimate.BlockUse(daily, 80))), "a call of 30 units with 20 left today: tomorrow");
    }
}
