package dev.gate.api;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * A try-now's answer: a permit when a slot was free at that moment (report its outcome as for any grant), else how long
 * until one may be (the next slot, plus a gap for each call of the same or a higher class waiting in the line). A
 * refused try leaves nothing behind. A plain class: it crosses by value.
 */
public final class Attempt implements Serializable {

    private static final long serialVersionUID = 1L;

    private final Permit permit;
    private final Duration retryAfter;

    private Attempt(Permit permit, Duration retryAfter) {
        this.permit = permit;
        this.retryAfter = Objects.requireNonNull(retryAfter);
    }

    public static Attempt granted(Permit permit) {
        return new Attempt(Objects.requireNonNull(permit), Duration.ZERO);
    }

    public static Attempt notNow(Duration retryAfter) {
        return new Attempt(null, retryAfter);
    }

    public boolean isGranted() {
        return permit != null;
    }

    /** The grant; throws when the try was refused. */
    public Permit permit() {
        if (permit == null) {
            throw new IllegalStateException("no slot was free: try again after " + retryAfter);
        }
        return permit;
    }

    /** Zero when granted; else the time until a slot may be free. */
    public Duration retryAfter() {
        return retryAfter;
    }

    @Override
    public String toString() {
        return permit != null ? "granted " + permit : "not now, retry after " + retryAfter;
    }
}
