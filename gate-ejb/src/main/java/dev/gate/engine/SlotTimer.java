package dev.gate.engine;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * When the slot loop runs next: at most one pass is armed, and arming for an earlier time replaces a later one.
 * The delay is computed by the caller from database time ("due at" minus "database now").
 */
final class SlotTimer {

    private final ScheduledExecutorService scheduler;
    private final Runnable pass;
    private ScheduledFuture<?> armed;
    private long armedAtNanos;
    private boolean stopped;

    SlotTimer(ScheduledExecutorService scheduler, Runnable pass) {
        this.scheduler = scheduler;
        this.pass = pass;
    }

    /** Runs the pass in {@code delay}, unless one is already armed sooner. */
    synchronized void armIn(Duration delay) {
        // whole milliseconds, rounded up: waking early only costs a pass that finds nothing due
        long delayMs = Math.max(0, (delay.toNanos() + 999_999) / 1_000_000);
        long at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMs);
        if (stopped || (armed != null && armedAtNanos - at <= 0)) {
            return;
        }
        if (armed != null) {
            armed.cancel(false);
        }
        armed = scheduler.schedule(this::fire, delayMs, TimeUnit.MILLISECONDS);
        armedAtNanos = at;
    }

    private void fire() {
        synchronized (this) {
            armed = null;
            if (stopped) {
                return;
            }
        }
        pass.run();
    }

    synchronized void stop() {
        stopped = true;
        if (armed != null) {
            armed.cancel(false);
            armed = null;
        }
    }
}
