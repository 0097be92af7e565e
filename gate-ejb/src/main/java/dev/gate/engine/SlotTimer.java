package dev.gate.engine;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * When the slot loop runs next, one pass at a time: at most one pass is armed, arming for an earlier time replaces a
 * later one, and arming while a pass runs only notes the earliest time asked for (the "run again" bit), which is
 * armed when the pass ends. So passes never overlap, and the loop never uses more than its one connection. The delay
 * is computed by the caller from database time ("due at" minus "database now").
 */
final class SlotTimer {

    /** Longest wait of a stop for the running pass (a pass is a few short transactions, each bounded). */
    static final Duration STOP_WAIT = Duration.ofSeconds(2);

    private final ScheduledExecutorService scheduler;
    private final Runnable pass;
    private ScheduledFuture<?> armed;
    private long armedAtNanos;
    private boolean running;
    private boolean again;
    private long againAtNanos;
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
        if (stopped) {
            return;
        }
        if (running) {
            if (!again || againAtNanos - at > 0) {
                again = true;
                againAtNanos = at;
            }
            return;
        }
        schedule(at);
    }

    private void schedule(long at) {
        if (armed != null && armedAtNanos - at <= 0) {
            return;
        }
        if (armed != null) {
            armed.cancel(false);
        }
        armed = scheduler.schedule(this::fire, Math.max(0, at - System.nanoTime()), TimeUnit.NANOSECONDS);
        armedAtNanos = at;
    }

    private void fire() {
        synchronized (this) {
            armed = null;
            if (stopped || running) {
                return;
            }
            running = true;
        }
        try {
            pass.run();
        } finally {
            synchronized (this) {
                running = false;
                notifyAll(); // a stop may be waiting for this pass
                if (again && !stopped) {
                    again = false;
                    schedule(againAtNanos);
                }
            }
        }
    }

    /**
     * No pass after this one; waits (a bounded while) for a pass that is running, so that a clean stop cancels its
     * instance's calls after the last grant this instance makes, not beside it.
     */
    synchronized void stop() {
        stopped = true;
        if (armed != null) {
            armed.cancel(false);
            armed = null;
        }
        long until = System.nanoTime() + STOP_WAIT.toNanos();
        try {
            while (running && until - System.nanoTime() > 0) {
                wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime())));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
