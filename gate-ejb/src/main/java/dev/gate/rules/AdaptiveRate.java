package dev.gate.rules;

import java.time.Duration;
import java.time.Instant;

/**
 * The adaptive rate of a limit whose vendor's real limit is unknown or changes (AIMD): it starts at the declared
 * calls per window; each rate-limit signal cuts it to 90% (at most once a window: the signals of one overload come
 * together), never below a tenth of the declared calls; each ten windows without a cut raise it by 2% of the declared
 * calls (at least one), up to the declared calls. The raise is counted from the last cut, so it needs no write per
 * success: the rate is a function of the last cut and the clock.
 */
public record AdaptiveRate(int declared, Duration window) {

    /** Windows without a signal per raise. */
    static final int RAISE_EVERY = 10;

    public AdaptiveRate {
        if (declared < 1) {
            throw new IllegalArgumentException("declared calls must be at least 1");
        }
    }

    /** The calls per window now; {@code cutTo} null: never cut, the declared calls. */
    public int effective(Integer cutTo, Instant cutAt, Instant now) {
        if (cutTo == null || cutAt == null) {
            return declared;
        }
        long windows = Math.max(0, Duration.between(cutAt, now).toNanos() / window.toNanos());
        long raised = cutTo + step() * (windows / RAISE_EVERY);
        return (int) Math.min(declared, raised);
    }

    /** Whether a signal now may cut the rate (one cut per window). */
    public boolean mayCut(Instant cutAt, Instant now) {
        return cutAt == null || !now.isBefore(cutAt.plus(window));
    }

    /** The calls per window after a signal, from the rate in force when it came. */
    public int afterSignal(int effective) {
        return (int) Math.max(floor(), (long) effective * 9 / 10); // in long: 9 x a billion is past an int
    }

    /** The lowest the rate goes: a tenth of the declared calls, at least one. */
    public int floor() {
        return Math.max(1, declared / 10);
    }

    /** The raise per {@link #RAISE_EVERY} windows: 2% of the declared calls, at least one. */
    public int step() {
        return Math.max(1, (declared * 2 + 50) / 100); // rounded half up, in integers (FreeSlot's SQL does the same)
    }
}
