package dev.gate.engine;

import dev.gate.api.GatePausedException;
import dev.gate.store.StoreUnavailable;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Whether this instance can reach its database. The first failure pauses calls: new calls are turned away at once,
 * without touching the database, and waiters are woken with the paused error. A successful database round trip
 * (the probe, a loop pass) resumes. One log line on pause (with the cause), one on resume (with the duration).
 */
final class Health {

    private static final Logger LOG = Logger.getLogger(Health.class.getName());

    private final Consumer<GatePausedException> onPause;
    private volatile String cause;
    private long sinceNanos;

    Health(Consumer<GatePausedException> onPause) {
        this.onPause = onPause;
    }

    boolean isPaused() {
        return cause != null;
    }

    /** Turns a call away while paused. */
    void requireUp() throws GatePausedException {
        String c = cause;
        if (c != null) {
            throw new GatePausedException(c);
        }
    }

    /** The store could not reach the database: calls pause; answers what a caller is told. */
    GatePausedException failed(StoreUnavailable e) {
        failed(e.getMessage());
        return new GatePausedException(e.getMessage());
    }

    void failed(String why) {
        boolean paused;
        synchronized (this) {
            paused = cause == null;
            if (paused) {
                cause = why;
                sinceNanos = System.nanoTime();
            }
        }
        if (paused) {
            LOG.warning("calls are paused: the gate's database is unavailable: " + why);
            onPause.accept(new GatePausedException(why));
        }
    }

    void up() {
        long pausedMs;
        synchronized (this) {
            if (cause == null) {
                return;
            }
            cause = null;
            pausedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sinceNanos);
        }
        LOG.info("calls resumed: the gate's database is back after " + pausedMs + " ms");
    }
}
