package dev.gate.rules;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneId;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Fixed windows on the vendor's calendar, daylight-saving days included (2026 in Los Angeles: 8 March, 1 November). */
class CalendarBlocksTest {

    private static final ZoneId LA = ZoneId.of("America/Los_Angeles");

    private static Instant la(String localDateTime) {
        return LocalDateTime.parse(localDateTime).atZone(LA).toInstant();
    }

    @Test
    void aDayResetsAtTheVendorsMidnight() {
        CalendarBlocks daily = new CalendarBlocks(Duration.ofDays(1), LA, LocalTime.MIDNIGHT);
        CalendarBlocks.Block b = daily.at(la("2026-06-10T23:59:59"));
        assertEquals(la("2026-06-10T00:00"), b.start());
        assertEquals(la("2026-06-11T00:00"), b.end());
        // the reset instant itself is the new day's
        assertEquals(la("2026-06-11T00:00"), daily.at(la("2026-06-11T00:00")).start());
        assertEquals(Instant.parse("2026-06-11T07:00:00Z"), b.end(), "midnight in Los Angeles is 07:00 UTC in summer");
    }

    @Test
    void daylightSavingDaysAre23And25Hours() {
        CalendarBlocks daily = new CalendarBlocks(Duration.ofDays(1), LA, LocalTime.MIDNIGHT);
        assertEquals(Duration.ofHours(23), daily.at(la("2026-03-08T12:00")).length());
        assertEquals(Duration.ofHours(25), daily.at(la("2026-11-01T12:00")).length());
        assertEquals(Duration.ofHours(24), daily.at(la("2026-11-02T12:00")).length());
    }

    @Test
    void aResetTimeTheClockSkipsIsTheFirstInstantAfterTheGap() {
        // 02:30 does not exist on 8 March 2026 in Los Angeles (02:00 -> 03:00)
        CalendarBlocks daily = new CalendarBlocks(Duration.ofDays(1), LA, LocalTime.of(2, 30));
        CalendarBlocks.Block b = daily.at(la("2026-03-08T12:00"));
        assertEquals(Instant.parse("2026-03-08T10:30:00Z"), b.start(), "03:30 PDT: moved forward by the gap");
        assertEquals(la("2026-03-09T02:30"), b.end());
        // before the shifted reset, the day before's block still runs
        assertEquals(la("2026-03-07T02:30"), daily.at(la("2026-03-08T01:00")).start());
    }

    @Test
    void partsOfADayCountFromTheDaysStartAndTheLastIsCutAtTheNextDay() {
        CalendarBlocks quarter = new CalendarBlocks(Duration.ofMinutes(15), LA, LocalTime.MIDNIGHT);
        CalendarBlocks.Block b = quarter.at(la("2026-06-10T10:07:30"));
        assertEquals(la("2026-06-10T10:00"), b.start());
        assertEquals(la("2026-06-10T10:15"), b.end());
        // 7 hours does not divide a day
        assertThrows(IllegalArgumentException.class,
                () -> new CalendarBlocks(Duration.ofHours(7), LA, LocalTime.MIDNIGHT));
        // 8-hour blocks on the 25-hour day: 00-08, 08-16, 16-24 (elapsed), then one hour cut at the next midnight
        CalendarBlocks eights = new CalendarBlocks(Duration.ofHours(8), LA, LocalTime.MIDNIGHT);
        CalendarBlocks.Block last = eights.at(la("2026-11-01T23:30"));
        assertEquals(la("2026-11-02T00:00"), last.end());
        assertEquals(Duration.ofHours(1), last.length());
        // and on the 23-hour day the third block is 7 hours long
        assertEquals(Duration.ofHours(7), eights.at(la("2026-03-08T23:00")).length());
    }

    @Test
    void blocksFollowEachOtherWithoutGapOrOverlapThroughBothClockChanges() {
        CalendarBlocks hours = new CalendarBlocks(Duration.ofHours(6), LA, LocalTime.of(4, 0));
        for (String from : new String[] {"2026-03-06T00:00", "2026-10-30T00:00"}) {
            Instant t = la(from);
            CalendarBlocks.Block b = hours.at(t);
            for (int i = 0; i < 40; i++) {
                CalendarBlocks.Block next = hours.next(b.start());
                assertEquals(b.end(), next.start(), "blocks must tile time: " + b + " then " + next);
                assertTrue(next.length().compareTo(Duration.ZERO) > 0
                        && next.length().compareTo(Duration.ofHours(6)) <= 0, next.toString());
                b = next;
            }
        }
    }

    @Test
    void aBlockLongerThanADayOrShorterThanASecondIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new CalendarBlocks(Duration.ofDays(2), LA, LocalTime.MIDNIGHT));
        assertThrows(IllegalArgumentException.class,
                () -> new CalendarBlocks(Duration.ofMillis(500), LA, LocalTime.MIDNIGHT));
    }

    @Test
    void aResetTimeTheClockRepeatsIsItsSecondStandardTimeOccurrenceAsPostgreSqlReadsIt() {
        // 1 November 2026: 01:00-02:00 happens twice in Los Angeles (PDT, then PST)
        CalendarBlocks daily = new CalendarBlocks(Duration.ofDays(1), LA, LocalTime.of(1, 30));
        assertEquals(Instant.parse("2026-11-01T09:30:00Z"), daily.at(Instant.parse("2026-11-01T12:00:00Z")).start(),
                "01:30 PST, not 01:30 PDT (08:30 UTC)");
        assertEquals(Instant.parse("2026-11-01T09:30:00Z"), daily.at(Instant.parse("2026-11-01T09:00:00Z")).end(),
                "at 01:00 PST the day before still runs");
    }
}
