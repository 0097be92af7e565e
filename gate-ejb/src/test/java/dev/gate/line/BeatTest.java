package dev.gate.line;

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
}
