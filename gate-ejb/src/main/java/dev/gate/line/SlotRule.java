package dev.gate.line;

import java.time.Instant;
import java.util.Optional;

/**
 * Whether a limit may send now: its slot must be due (the beat) and its last window must have room (the cap).
 * Both must agree; the later of the two is when to look again.
 */
public final class SlotRule {

    private SlotRule() {
    }

    public static SlotDecision decide(Pace pace, Instant now, Instant nextSlot, Optional<Instant> nthMostRecentSend) {
        Instant earliest = nextSlot;
        Optional<Instant> room = WindowCap.roomAt(pace, nthMostRecentSend);
        if (room.isPresent() && room.get().isAfter(earliest)) {
            earliest = room.get();
        }
        return now.isBefore(earliest) ? SlotDecision.waitUntil(earliest) : SlotDecision.sendAt(now);
    }
}
