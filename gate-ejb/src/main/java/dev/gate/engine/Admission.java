package dev.gate.engine;

import dev.gate.api.GateBusyException;
import dev.gate.api.GateException;
import dev.gate.api.GatePausedException;
import dev.gate.store.StoreBusy;
import dev.gate.store.StoreUnavailable;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Lets a caller's database work in: turned away at once while calls are paused, never more of it at once than the
 * pool rule budgets ({@link PoolNeeds}), tried again while the database is busy, and the store's own errors told as
 * the public ones (unavailable: {@link GatePausedException}, busy: {@link GateBusyException}). No turn free within
 * the wait is "busy" too: a burst of callers is not an outage.
 */
final class Admission {

    /** Most tries of one caller step when the database is busy, before the caller hears "busy". */
    static final int BUSY_TRIES = 3;

    /** A caller's step: one or more short store transactions. */
    @FunctionalInterface
    interface Work<T> {
        T run() throws StoreUnavailable;
    }

    private final Health health;
    private final Semaphore turns;
    private final Duration turnWait;

    Admission(Health health, int inFlight, Duration turnWait) {
        this.health = health;
        this.turns = new Semaphore(inFlight, true);
        this.turnWait = turnWait;
    }

    <T> T run(Work<T> work) throws GateException {
        return run(work, BUSY_TRIES);
    }

    /** As {@link #run(Work)}, with at most {@code tries} tries while the database is busy. */
    <T> T run(Work<T> work, int tries) throws GateException {
        health.requireUp();
        boolean turn;
        try {
            turn = turns.tryAcquire(turnWait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GateBusyException("interrupted while waiting for a turn at the database");
        }
        if (!turn) {
            // a burst of callers or status reads, not an outage: the database may be answering every one of them
            throw new GateBusyException("too many steps at once: no turn at the database within "
                    + turnWait.toMillis() + " ms");
        }
        try {
            for (int attempt = 1; ; attempt++) {
                try {
                    return work.run();
                } catch (StoreBusy e) {
                    if (attempt >= tries) {
                        throw new GateBusyException(e.getMessage());
                    }
                }
            }
        } catch (StoreUnavailable e) {
            throw health.failed(e);
        } finally {
            turns.release();
        }
    }
}
