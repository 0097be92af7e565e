package dev.gate.rules;

import java.time.Instant;
import java.util.Objects;

/**
 * Either a send may go out now, or the earliest time at which one may. For a send now, {@code notBefore} is the
 * moment it became due (the beat, or later where a window cap, the minimum spacing or a cool-down held it back): the
 * slot the next beat counts from.
 */
public record SlotDecision(boolean sendNow, Instant notBefore) {

    public SlotDecision {
        Objects.requireNonNull(notBefore, "notBefore");
    }

    /** A send now, due since {@code dueAt} (at or before now). */
    public static SlotDecision sendNow(Instant dueAt) {
        return new SlotDecision(true, dueAt);
    }

    public static SlotDecision waitUntil(Instant time) {
        return new SlotDecision(false, time);
    }
}
