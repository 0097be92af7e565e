package dev.gate.engine;

import dev.gate.store.Leases;
import dev.gate.store.StoreUnavailable;
import dev.gate.store.Tx;
import dev.gate.wait.Waiters;

import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;

/**
 * Ends the calls whose callers were told "not granted" (paused, timed out, interrupted) but that the database could
 * not take out of the line at that moment: still waiting, they are cancelled; granted meanwhile, abandoned; and the
 * grants of tries whose answer was lost (found by the try's key). Runs
 * with every heartbeat and, after an outage, before anything is granted again, so nothing is granted to nobody.
 */
final class Recovery {

    private static final Logger LOG = Logger.getLogger(Recovery.class.getName());

    private final String owner;
    private final Health health;
    private final Tx tx;
    private final Leases leases;
    private final Waiters waiters;

    Recovery(String owner, Health health, Tx tx, Leases leases, Waiters waiters) {
        this.owner = owner;
        this.health = health;
        this.tx = tx;
        this.leases = leases;
        this.waiters = waiters;
    }

    /**
     * After an outage: once the database has answered (the probe: with no orphans to end, nothing else here would
     * touch it, and the gate would resume blind), the orphans end, then calls resume. A no-op while up. The probe
     * first, with the short wait: while calls are paused there is no stall to ride out, only the database's return
     * to notice soon.
     */
    void resumeIfPaused() throws StoreUnavailable {
        if (health.isPaused()) {
            tx.probe();
            sweepOrphans();
            health.up();
        }
    }

    void sweepOrphans() throws StoreUnavailable {
        // each owner's own (this instance's callers, or a program's over HTTP): its keys are unique per owner
        for (Map.Entry<String, Set<String>> tries : waiters.unansweredTries().entrySet()) {
            for (Leases.Cleared c : leases.endUnansweredTries(tries.getKey(), tries.getValue())) {
                LOG.info(() -> "call " + c.callId() + " limit=" + c.limit() + " class=" + c.callClass()
                        + " abandoned: granted to a try whose answer was lost (its caller was told calls are paused)");
            }
            waiters.triesSwept(tries.getKey(), tries.getValue());
        }
        Set<Long> orphans = waiters.abandoned();
        if (orphans.isEmpty()) {
            return;
        }
        for (Leases.Cleared c : leases.endOrphans(orphans)) {
            LOG.info(() -> "call " + c.callId() + " limit=" + c.limit() + " class=" + c.callClass()
                    + (c.state().equals("CANCELLED") ? " cancelled: its caller was told it was not granted"
                    : " abandoned: granted, but its caller was gone (told it was not granted)"));
        }
        waiters.swept(orphans);
    }
}
