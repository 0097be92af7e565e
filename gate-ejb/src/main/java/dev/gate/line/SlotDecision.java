package dev.gate.line;

import java.time.Instant;
import java.util.Objects;

/** Either a send may go out now, or the earliest time at which one may. */
public record SlotDecision(boolean sendNow, Instant notBefore) {

    public SlotDecision {
        Objects.requireNonNull(notBefore, "notBefore");
    }

    public static SlotDecision sendAt(Instant now) {
        return new SlotDecision(true, now);
    }

    public static SlotDecision waitUntil(Instant time) {
        return new SlotDecision(false, time);
    }
}
