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

    /** The verdict on one request: accepted, or refused with its Retry-After in whole seconds. */
    public record Verdict(boolean accepted, long retryAfterSeconds) {
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
        if (accepted.size() < calls) {
            accepted.addLast(nowNanos);
            return new Verdict(true, 0);
        }
        long freeIn = accepted.peekFirst() + windowNanos - nowNanos;
        return new Verdict(false, Math.max(1, (freeIn + 999_999_999L) / 1_000_000_000L));
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
