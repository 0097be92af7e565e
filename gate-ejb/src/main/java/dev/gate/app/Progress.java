package dev.gate.app;

import java.time.Duration;

/**
 * How far a job is: items done of all, the current rate (over the last minute, or since the execution started when
 * that is shorter) and the time left at that rate (null when nothing is moving or all is done).
 */
public record Progress(long done, long total, double perMinute, Duration left) implements java.io.Serializable {

    public static final Duration RATE_WINDOW = Duration.ofMinutes(1);

    /** @param doneInWindow items done within the rate window; @param running how long this execution has run */
    public static Progress of(long done, long total, long doneInWindow, Duration running) {
        Duration window = running.compareTo(RATE_WINDOW) < 0 ? running : RATE_WINDOW;
        double perMinute = window.isZero() || window.isNegative() ? 0
                : doneInWindow * 60_000.0 / window.toMillis();
        long remaining = Math.max(0, total - done);
        Duration left = remaining == 0 || perMinute <= 0 ? null
                : Duration.ofMillis((long) Math.ceil(remaining / perMinute * 60_000));
        return new Progress(done, total, perMinute, left);
    }

    public int percent() {
        return total == 0 ? 100 : (int) Math.min(100, done * 100 / total);
    }
}
