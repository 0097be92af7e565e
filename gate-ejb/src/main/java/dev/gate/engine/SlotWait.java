package dev.gate.engine;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The loop's wait for a slot that is due within its lead: in the loop's own thread, holding no lock and no
 * connection, so the limit's row stays free for another instance's pass and for callers' tries meanwhile.
 */
final class SlotWait {

    private SlotWait() {
    }

    /** Waits {@code left} (nothing when zero or negative); an interrupt ends the wait early and is kept. */
    static void until(Duration left) {
        long end = System.nanoTime() + left.toNanos();
        try {
            for (long rest = left.toNanos(); rest > 0; rest = end - System.nanoTime()) {
                TimeUnit.NANOSECONDS.sleep(rest);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
