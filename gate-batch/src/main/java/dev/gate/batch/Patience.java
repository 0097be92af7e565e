package dev.gate.batch;

import dev.gate.api.GateBusyException;
import dev.gate.api.GatePausedException;
import dev.gate.api.LineFullException;

import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;

/**
 * How a batch step waits out a paused or busy gate, a full line, or a database that does not answer (its journal
 * and results live there too): the step is tried again, a little later each time, for as long as it takes, while the
 * job is not asked to stop. A paused gate is not a reason to fail a job; once the job is stopping, the last failure is thrown and
 * the chunk is cut (what it fetched is kept for the restart). Any other failure is thrown at once. Each step it
 * retries must be safe to run twice (the journal's and the writer's statements are).
 */
public final class Patience {

    private static final Logger LOG = Logger.getLogger(Patience.class.getName());

    /** The first wait, and the longest, between two tries. */
    static final Duration FIRST = Duration.ofMillis(100);
    static final Duration LONGEST = Duration.ofSeconds(2);

    /** One step: a call to the gate, or a statement of the step's own. */
    @FunctionalInterface
    public interface Step<T> {
        T run() throws Exception;
    }

    private final BooleanSupplier stopping;
    private final String who;

    /**
     * @param stopping whether the job is asked to stop (then waiting ends)
     * @param who      the job and execution, for the operators' log
     */
    public Patience(BooleanSupplier stopping, String who) {
        this.stopping = stopping;
        this.who = who;
    }

    /** Runs {@code step} until it succeeds, waiting out what passes by itself; {@code what}: for the log. */
    public <T> T outlast(String what, Step<T> step) throws Exception {
        long pauseMs = FIRST.toMillis();
        long since = 0;
        while (true) {
            try {
                T result = step.run();
                if (since != 0) {
                    long waited = (System.nanoTime() - since) / 1_000_000;
                    LOG.info(() -> who + ": " + what + " went on after waiting " + waited + " ms");
                }
                return result;
            } catch (Exception e) {
                if (!isPassing(e) || stopping.getAsBoolean()) {
                    throw e;
                }
                if (since == 0) {
                    since = System.nanoTime();
                    LOG.info(() -> who + ": " + what + " waits, and goes on when it can: " + e.getMessage());
                }
                Thread.sleep(pauseMs);
                pauseMs = Math.min(LONGEST.toMillis(), pauseMs * 2);
            }
        }
    }

    /**
     * A failure that passes by itself: the gate paused (its database unavailable) or busy, its line full, or a
     * statement of the step's own that lost its database (connection class 08, a server shutting down, no connection
     * from the pool).
     */
    static boolean isPassing(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof GatePausedException || t instanceof GateBusyException || t instanceof LineFullException
                    || t instanceof SQLTransientConnectionException || t instanceof SQLRecoverableException
                    || t instanceof IOException) {
                return true;
            }
            if (t instanceof SQLException sql) {
                String state = sql.getSQLState();
                if (state != null ? state.startsWith("08") || state.startsWith("57P")
                        : String.valueOf(sql.getMessage()).contains("IJ0")) { // IronJacamar: no connection
                    return true;
                }
            }
        }
        return false;
    }
}
