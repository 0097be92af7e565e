package dev.gate.rules;

import java.time.Duration;
import java.time.Instant;

/**
 * When a waiting call can expect its grant: the limit's next chance to send (its slot, or the end of a cool-down,
 * whichever is later, and not before now), plus one gap for every call ahead of it. An estimate: window caps, keys
 * and later arrivals of a higher class can only make it later.
 */
public final class WaitEstimate {

    private WaitEstimate() {
    }

    public static Instant grantAt(Instant now, Instant nextSlot, Instant pausedUntil, long ahead, Duration gap) {
        Instant first = nextSlot.isAfter(now) ? nextSlot : now;
        if (pausedUntil != null && pausedUntil.isAfter(first)) {
            first = pausedUntil;
        }
        return first.plus(gap.multipliedBy(ahead));
    }
}
