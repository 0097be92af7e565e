package dev.gate.rules;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * A vendor's rule: {@code calls} sends per {@code window}. The gap between sends is window / calls, rounded up to
 * whole microseconds (the database's resolution) so that rounding can only ever make the gate slower, never faster.
 */
public record Pace(int calls, Duration window) {

    public Pace {
        Objects.requireNonNull(window, "window");
        if (calls <= 0) {
            throw new IllegalArgumentException("calls must be positive: " + calls);
        }
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("window must be positive: " + window);
        }
    }

    public static Pace of(int calls, long windowMillis) {
        return new Pace(calls, Duration.ofMillis(windowMillis));
    }

    public Duration gap() {
        long windowMicros = window.toNanos() / 1_000;
        long gapMicros = (windowMicros + calls - 1) / calls;
        return Duration.of(Math.max(1, gapMicros), ChronoUnit.MICROS);
    }
}
