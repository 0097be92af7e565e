package dev.gate.demo.vendor;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A vendor's own rule, by its own receipt clock: at most {@code calls} accepted in any {@code window}; beyond that a
 * request is refused with the seconds until a place frees (its Retry-After). It also keeps the worst sliding window
 * of requests received, refused ones included: what the vendor saw of its callers' pacing.
 */
public final class VendorWindow {

    /**
     * The verdict on one request: accepted, or refused with its Retry-After in whole seconds; and the vendor's own
     * count after it, as rate-limit headers say it: the places left in the window and the whole seconds until the
     * next one frees (when the oldest accepted request leaves it).
     */
    public record Verdict(boolean accepted, long retryAfterSeconds, int remaining, long resetSeconds, int limit,
                          long windowSeconds) {

        /** The headers of the vendor's count: X-RateLimit-*, the IETF RateLimit and RateLimit-Policy fields. */
        public java.util.Map<String, String> headers() {
            return java.util.Map.of("X-RateLimit-Limit", Integer.toString(limit),
                    "X-RateLimit-Remaining", Integer.toString(remaining),
                    "X-RateLimit-Reset", Long.toString(resetSeconds),
                    "RateLimit", "limit=" + limit + ", remaining=" + remaining + ", reset=" + resetSeconds,
                    "RateLimit-Policy", limit + ";w=" + windowSeconds);
        }
    }

    private final int calls;
    private final long windowNanos;
    private final Deque<Long> accepted = new ArrayDeque<>();
    private final Deque<Long> received = new ArrayDeque<>();
    private int worstWindow;

    public VendorWindow(int calls, Duration window) {
        this.calls = calls;
        this.windowNanos = window.toNanos();
    }

    public synchronized Verdict admit(long nowNanos) {
        evict(accepted, nowNanos);
        evict(received, nowNanos);
        received.addLast(nowNanos);
        worstWindow = Math.max(worstWindow, received.size());
        boolean ok = accepted.size() < calls;
        if (ok) {
            accepted.addLast(nowNanos);
        }
        long freeIn = Math.max(1, (accepted.peekFirst() + windowNanos - nowNanos + 999_999_999L) / 1_000_000_000L);
        long windowSeconds = Math.max(1, windowNanos / 1_000_000_000L);
        return new Verdict(ok, ok ? 0 : freeIn, calls - accepted.size(), freeIn, calls, windowSeconds);
    }

    /** The most requests received within any one window so far. */
    public synchronized int worstWindow() {
        return worstWindow;
    }

    private void evict(Deque<Long> times, long nowNanos) {
        while (!times.isEmpty() && times.peekFirst() <= nowNanos - windowNanos) {
            times.removeFirst();
        }
    }
}
