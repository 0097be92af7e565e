package dev.gate.engine;

import dev.gate.api.CallEndedException;
import dev.gate.store.IdleKeys;
import dev.gate.store.Leases;
import dev.gate.store.Retention;
import dev.gate.store.StaleKeys;
import dev.gate.store.StoreBusy;
import dev.gate.store.StoreUnavailable;
import dev.gate.wait.Waiters;

import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The periodic jobs of one instance, on one tick (every {@code retry}), each when it is due: the health probe while
 * paused; the lease heartbeat every {@code heartbeat}, always before leases are cleared, so a live waiter's lease
 * never runs out in the same tick (nor while the heartbeat fails); lease clearing and the waiter poll every
 * {@code waiterPoll}; keys that missed their template's change, idle keys and retention every {@code pruneEvery} (the
 * sweeps and retention at every tick while a backlog is left). Each step fails alone: a busy one does not stop the
 * others.
 */
final class Housekeeper {

    private static final Logger LOG = Logger.getLogger(Housekeeper.class.getName());

    /**
     * How long a key's limit stays after its last call even when idle: its join follows the open, and its finished
     * calls (which go with it) still answer a program's retry (its submission key) and an outcome read for this long.
     */
    static final Duration KEY_GRACE = Duration.ofMinutes(10);

    /** Idle keys removed per statement (each goes with its finished calls, slot, rules and send log). */
    static final int KEY_BATCH = 500;

    /** Retention's batch size and its share of one tick, so it never delays a heartbeat for long. */
    static final int PRUNE_BATCH = 2_000;
    static final Duration PRUNE_BUDGET = Duration.ofMillis(100);

    /** The lease sweeps' batch size (calls per statement) and their share of one tick. */
    static final int SWEEP_BATCH = 1_000;
    static final Duration SWEEP_BUDGET = Duration.ofMillis(100);

    /** Calls logged one line each per sweep batch; the rest of a batch, one line per limit. */
    static final int LOGGED_PER_BATCH = 20;

    private final String owner;
    private final EngineSettings settings;
    private final Leases leases;
    private final Retention retention;
    private final IdleKeys idle;
    private final StaleKeys stale;
    private final Waiters waiters;
    private final Delivery delivery;
    private final Recovery recovery;
    private final Health health;
    private final Runnable keysFreed;
    private long lastHeartbeatNanos;
    private long lastPollNanos;
    private long lastPruneNanos;
    private boolean pruneBacklog;
    private boolean sweepBacklog;
    private boolean heartbeatMissed;

    private final Tally tally;

    Housekeeper(String owner, EngineSettings settings, Leases leases, Retention retention, IdleKeys idleKeys,
                StaleKeys staleKeys, Waiters waiters, Delivery delivery, Recovery recovery, Health health,
                Runnable keysFreed, Tally tally) {
        this.idle = idleKeys;
        this.stale = staleKeys;
        this.owner = owner;
        this.settings = settings;
        this.leases = leases;
        this.retention = retention;
        this.waiters = waiters;
        this.delivery = delivery;
        this.recovery = recovery;
        this.health = health;
        this.keysFreed = keysFreed;
        this.tally = tally;
        lastHeartbeatNanos = lastPollNanos = lastPruneNanos = System.nanoTime();
    }

    /** One housekeeping step: it may find the database unavailable or busy. */
    @FunctionalInterface
    private interface Step {
        void run() throws StoreUnavailable;
    }

    /**
     * Each step in its own failure scope: a busy step (a lock or statement timeout) or a bug in one is logged and the
     * next step runs; an unavailable database ends the tick (every other step would find it so too) and pauses calls.
     */
    void tick() {
        long now = System.nanoTime();
        if (health.isPaused() && !step("recovery", recovery::resumeIfPaused)) { // probes the database first
            return;
        }
        if (now - lastHeartbeatNanos >= settings.heartbeat().toNanos()) {
            lastHeartbeatNanos = now;
            heartbeatMissed = true;
            if (!step("heartbeat", () -> {
                leases.renewOwned(owner, waiters.callIds());
                heartbeatMissed = false;
            }) || !step("orphans", recovery::sweepOrphans)) {
                return;
            }
        }
        if (sweepBacklog || now - lastPollNanos >= settings.waiterPoll().toNanos()) {
            lastPollNanos = now;
            // a lease is cleared only after this instance's heartbeat renewed its live waiters' leases
            if (!heartbeatMissed && !step("lease sweep", this::expire)) {
                return;
            }
            if (!step("delivery", delivery::poll)) {
                return;
            }
        }
        if (pruneBacklog || now - lastPruneNanos >= settings.pruneEvery().toNanos()) {
            lastPruneNanos = now;
            step("retention", this::prune);
        }
    }

    /** Runs one step; false when the database was found unavailable (the tick ends). */
    private boolean step(String name, Step step) {
        try {
            step.run();
            return true;
        } catch (StoreUnavailable e) {
            health.failed(e);
            return false;
        } catch (StoreBusy e) {
            LOG.fine(() -> "gate housekeeping: " + name + " busy (" + e.getMessage() + "); again at the next tick");
            return true;
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "gate housekeeping: " + name + " failed; the other steps go on", e);
            return true;
        }
    }

    /**
     * Lapsed leases and passed deadlines: waiting calls end as EXPIRED (never granted) and their waiters are told;
     * grants whose lease ran out without an outcome end as ABANDONED (their keys are free again). A batch of each
     * per statement, for at most {@link #SWEEP_BUDGET} per tick; a backlog goes on at the next tick.
     */
    private void expire() throws StoreUnavailable {
        long until = System.nanoTime() + SWEEP_BUDGET.toNanos();
        boolean more = true;
        while (more && System.nanoTime() < until) {
            List<Leases.Cleared> lapsed = leases.expireLapsed(SWEEP_BATCH);
            expired(lapsed, "its lease ran out", "lease");
            List<Leases.Cleared> late = leases.expirePastDeadline(SWEEP_BATCH);
            expired(late, "its deadline passed", "deadline");
            List<Leases.Cleared> abandoned = leases.abandonLapsed(SWEEP_BATCH);
            logEach(abandoned, c -> {
                tally.abandoned(c.limit(), c.callClass());
                return "call " + c.callId() + " limit=" + c.limit() + " class=" + c.callClass()
                        + " abandoned: granted, but no outcome came within its lease (owner " + c.owner() + ")";
            }, "abandoned: no outcome within their leases");
            if (!abandoned.isEmpty()) {
                keysFreed.run(); // a call waiting on an abandoned grant's concurrency key may go now
            }
            more = lapsed.size() == SWEEP_BATCH || late.size() == SWEEP_BATCH || abandoned.size() == SWEEP_BATCH;
        }
        sweepBacklog = more;
    }

    /**
     * One log line per ended call (the operator's record), up to {@link #LOGGED_PER_BATCH} a batch; a larger batch
     * (a dead program's backlog) ends with one line per limit for the rest.
     */
    private static void logEach(List<Leases.Cleared> cleared, java.util.function.Function<Leases.Cleared, String> line,
                                String rest) {
        java.util.Map<String, Integer> unlogged = new java.util.TreeMap<>();
        for (int i = 0; i < cleared.size(); i++) {
            Leases.Cleared c = cleared.get(i);
            String text = line.apply(c);
            if (i < LOGGED_PER_BATCH) {
                LOG.info(text);
            } else {
                unlogged.merge(c.limit(), 1, Integer::sum);
            }
        }
        unlogged.forEach((limit, n) -> LOG.info(() -> "limit=" + limit + ": " + n + " more calls " + rest));
    }

    private void expired(List<Leases.Cleared> cleared, String why, String counted) {
        logEach(cleared, c -> {
            tally.expired(c.limit(), c.callClass(), counted);
            if (c.owner().equals(owner)) {
                waiters.ended(c.callId(), new CallEndedException("call " + c.callId() + " expired: " + why));
            }
            return "call " + c.callId() + " limit=" + c.limit() + " class=" + c.callClass() + " expired: " + why
                    + " (owner " + c.owner() + ")";
        }, "expired: " + why);
    }

    /** One batch of idle keys; a busy database skips it for this tick, and retention still runs. */
    private IdleKeys.Swept sweepKeys() throws StoreUnavailable {
        try {
            return idle.sweep(KEY_GRACE, KEY_BATCH);
        } catch (StoreBusy e) {
            LOG.fine(() -> "idle keys not removed this tick (" + e.getMessage() + ")");
            return new IdleKeys.Swept(List.of(), 0, 0);
        }
    }

    /**
     * One batch of keys that missed their template's change (see {@link LimitControl}: a change's keys follow it after
     * it commits, and an outage or a slow lock can cut that short); a busy database skips it for this tick.
     */
    private boolean followMissed() throws StoreUnavailable {
        boolean more = false;
        try {
            for (String template : stale.missed()) {
                int n = stale.follow(template, StaleKeys.FOLLOW_BATCH);
                LOG.info(() -> "limit " + template + ": " + n + " open keys that missed its last change took it");
                more |= n == StaleKeys.FOLLOW_BATCH;
            }
        } catch (StoreBusy e) {
            LOG.fine(() -> "keys not brought to their templates' rules this tick (" + e.getMessage() + ")");
        }
        return more;
    }

    /** Deletes what retention no longer keeps, a batch at a time, for at most {@link #PRUNE_BUDGET} per tick. */
    private void prune() throws StoreUnavailable {
        long until = System.nanoTime() + PRUNE_BUDGET.toNanos();
        int sends = 0;
        int finished = 0;
        int idleKeys = 0;
        boolean more = true;
        while (more && System.nanoTime() < until) {
            boolean behind = followMissed();
            IdleKeys.Swept swept = sweepKeys();
            int k = swept.removed().size();
            int s = retention.pruneSends(PRUNE_BATCH);
            int c = retention.pruneCalls(settings.retention(), PRUNE_BATCH);
            int r = retention.pruneCoolDowns(PRUNE_BATCH);
            int aside = retention.pruneRemovedSends(PRUNE_BATCH);
            idleKeys += k;
            sends += s;
            finished += c;
            more = behind || swept.looked() == KEY_BATCH || s == PRUNE_BATCH || c == PRUNE_BATCH
                    || r == PRUNE_BATCH || aside == PRUNE_BATCH;
        }
        if (idleKeys > 0) {
            int k = idleKeys;
            LOG.info(() -> "removed " + k + " idle keys of keyed limits (no call, send or cool-down left in them)");
        }
        pruneBacklog = more;
        if (sends + finished > 0) {
            int s = sends;
            int c = finished;
            LOG.fine(() -> "retention deleted " + s + " sends and " + c + " finished calls");
        }
    }
}
