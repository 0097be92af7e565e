package dev.gate.rules;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;

class BeatTest {

    private static final Duration GAP = Duration.ofMillis(100);
    private static final Instant SLOT = Instant.parse("2026-12-01T10:00:00Z");

    @Test
    void anOnTimeSendMovesTheSlotByOneGap() {
        assertEquals(SLOT.plus(GAP), Beat.next(SLOT, SLOT, GAP));
    }

    @Test
    void aSlightlyLateSendKeepsTheBeat() {
        assertEquals(SLOT.plus(GAP), Beat.next(SLOT, SLOT.plusMillis(40), GAP));
        assertEquals(SLOT.plus(GAP), Beat.next(SLOT, SLOT.plusMillis(100), GAP), "exactly one gap late still keeps it");
    }

    @Test
    void aSlipOfMoreThanOneGapResetsFromTheActualSend() {
        Instant sent = SLOT.plusMillis(101);
        assertEquals(sent.plus(GAP), Beat.next(SLOT, sent, GAP));
        Instant afterIdleHour = SLOT.plus(Duration.ofHours(1));
        assertEquals(afterIdleHour.plus(GAP), Beat.next(SLOT, afterIdleHour, GAP), "an idle line gets no burst");
    }

    @Test
    void afterIdleTimeABurstAllowanceLetsThatManySendsGoBackToBackThenTheBeatResumes() {
        Instant afterIdle = SLOT.plus(Duration.ofMinutes(5));
        Instant slot = SLOT;
        int backToBack = 0;
        Instant now = afterIdle;
        while (!slot.isAfter(now)) { // every send the slot allows at this one moment
            slot = Beat.next(slot, now, GAP, 4);
            backToBack++;
        }
        assertEquals(4, backToBack, "four sends at once after idle time");
        assertEquals(afterIdle.plus(GAP), slot, "then the beat: one gap after the burst");
        // a line idle for only two gaps since its burst gets two back: the allowance refills one per gap
        Instant later = afterIdle.plus(GAP.multipliedBy(3));
        int again = 0;
        while (!slot.isAfter(later)) {
            slot = Beat.next(slot, later, GAP, 4);
            again++;
        }
        assertEquals(3, again, "the slot at one gap, and two refilled in the two gaps idle since");
    }

    @Test
    void aBurstOfOneIsNoBurst() {
        Instant afterIdleHour = SLOT.plus(Duration.ofHours(1));
        assertEquals(Beat.next(SLOT, afterIdleHour, GAP), Beat.next(SLOT, afterIdleHour, GAP, 1));
    }
}
