package dev.gate.engine;

import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/** One log line when calls pause (with the cause), one when they resume (with how long they were paused). */
final class PauseLog {

    private static final Logger LOG = Logger.getLogger(PauseLog.class.getName());

    private boolean paused;
    private long sinceNanos;

    synchronized void paused(String cause) {
        if (!paused) {
            paused = true;
            sinceNanos = System.nanoTime();
            LOG.warning("calls are paused: the gate's database is unavailable: " + cause);
        }
    }

    synchronized void resumed() {
        if (paused) {
            paused = false;
            LOG.info("calls resumed: the gate's database is back after "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sinceNanos) + " ms");
        }
    }
}
