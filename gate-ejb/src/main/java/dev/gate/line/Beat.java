package dev.gate.line;

import java.time.Duration;
import java.time.Instant;

/**
 * Where the next slot lies after a send. A send that went out slightly late keeps the beat (next = slot + gap), so
 * timer lateness does not lose slots; only when the schedule slipped by more than one whole gap (an idle line, a long
 * pause) does it restart from the actual send (next = sent + gap), which never allows a burst of catch-up sends.
 */
public final class Beat {
    // The slot passed in is the one the send was due at (SlotDecision.notBefore): the beat, or the moment a window
    // cap, the minimum spacing or a cool-down let it go.

    private Beat() {
    }

    public static Instant next(Instant slot, Instant sentAt, Duration gap) {
        Duration slip = Duration.between(slot, sentAt);
        return slip.compareTo(gap) <= 0 ? slot.plus(gap) : sentAt.plus(gap);
    }
}
