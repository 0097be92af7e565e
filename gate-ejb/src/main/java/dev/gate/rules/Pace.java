package dev.gate.rules;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * A vendor's rule: {@code calls} sends per {@code window}. The gap between sends is window / calls, rounded up to
 * whole microseconds (the database's resolution) so that rounding can only ever make the gate slower, never faster.
 *
 * <p>The window slides with each send unless the rule is aligned ({@code blocks}: the vendor's fixed windows, a
 * calendar day of its zone or a whole part of one, {@link CalendarBlocks}); an aligned rule counts the sends of the
 * block, and {@code margin} (its receipt margin, {@link ReceiptMargin}) counts a send that went within that long before
 * a block's start into that block too. A sliding rule's margin is in its window (widened) and {@code margin} is zero.
 */
public record Pace(int calls, Duration window, CalendarBlocks blocks, Duration margin) {

    public Pace {
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(margin, "margin");
        if (calls <= 0) {
            throw new IllegalArgumentException("calls must be positive: " + calls);
        }
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("window must be positive: " + window);
        }
        if (blocks != null && !blocks.length().equals(window)) {
            throw new IllegalArgumentException("an aligned rule's blocks are its window: " + blocks + ", " + window);
        }
    }

    /** A sliding window. */
    public Pace(int calls, Duration window) {
        this(calls, window, null, Duration.ZERO);
    }

    public static Pace of(int calls, long windowMillis) {
        return new Pace(calls, Duration.ofMillis(windowMillis));
    }

    /** A rule on the vendor's fixed windows: {@code calls} per block. */
    public static Pace aligned(int calls, CalendarBlocks blocks) {
        return new Pace(calls, blocks.length(), blocks, Duration.ZERO);
    }

    public boolean isAligned() {
        return blocks != null;
    }

    /** As this rule, on the same calls, blocks and margin. */
    public Pace withCalls(int n) {
        return new Pace(n, window, blocks, margin);
    }

    public Duration gap() {
        long windowMicros = window.toNanos() / 1_000;
        long gapMicros = (windowMicros + calls - 1) / calls;
        return Duration.of(Math.max(1, gapMicros), ChronoUnit.MICROS);
    }
}
