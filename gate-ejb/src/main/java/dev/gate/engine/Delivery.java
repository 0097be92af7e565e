package dev.gate.engine;

import dev.gate.api.CallEndedException;
import dev.gate.api.CallState;
import dev.gate.domain.CallRow;
import dev.gate.store.CallReads;
import dev.gate.domain.Grant;
import dev.gate.store.GrantPass;
import dev.gate.store.StoreUnavailable;
import dev.gate.wait.Waiters;
import dev.gate.wait.StateWatches;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Tells this instance's waiters and watches what the database decided, only after it committed: grants of a pass
 * (this instance's loop or a caller's fast path), grants another instance announced (LISTEN), and whatever the
 * periodic poll finds (a lost notification, an expiry).
 */
final class Delivery {

    private static final Logger LOG = Logger.getLogger(Delivery.class.getName());

    private final String owner;
    private final CallReads reads;
    private final Waiters waiters;
    private final StateWatches<CallRow> watches;
    private final Health health;
    private final Tally tally;

    Delivery(String owner, CallReads reads, Waiters waiters, StateWatches<CallRow> watches, Health health,
             Tally tally) {
        this.owner = owner;
        this.reads = reads;
        this.waiters = waiters;
        this.watches = watches;
        this.health = health;
        this.tally = tally;
    }

    /**
     * Grants of a pass of this instance's, between their statement and their commit: their watchers hear of them
     * from {@link #granted} (with the call whole), not from the instance's own announcement, which can come first.
     */
    private final Set<Long> delivering = ConcurrentHashMap.newKeySet();

    /**
     * One pass of this instance's, from before its commit ({@link #hold}) until its grants were delivered or it
     * failed ({@link #close}: if the pass's announcement was skipped and its commit's answer lost, the poll tells).
     */
    final class Pending implements AutoCloseable {
        private List<Long> held = List.of();

        /**
         * The pass is about to commit: its whole grants are delivered here, not from its announcement. A transaction
         * tried again (busy) holds its new pass in place of the one that rolled back.
         */
        void hold(GrantPass pass) {
            held.forEach(delivering::remove);
            held = pass.grants().stream().filter(g -> g.whole().isPresent()).map(Grant::callId).toList();
            delivering.addAll(held);
        }

        @Override
        public void close() {
            held.forEach(delivering::remove);
        }
    }

    /** A pass's grants, held from its announcement until delivered ({@link Pending}). */
    Pending pending() {
        return new Pending();
    }

    /** A committed pass: each of its grants reaches its waiter here (if any) and its watches. */
    void granted(GrantPass pass) {
        for (Grant g : pass.grants()) {
            watches.left(g.callId(), g.whole().orElse(null)); // a call granted whole needs no read by its watchers
            if (g.aged()) {
                LOG.info(() -> "call " + g.callId() + " limit=" + g.limit() + " class=" + g.callClass()
                        + " granted by the starvation guard after waiting "
                        + java.time.Duration.between(g.enqueuedAt(), g.grantedAt()).toMillis() + " ms");
            } else {
                LOG.fine(() -> "call " + g.callId() + " limit=" + g.limit() + " class=" + g.callClass()
                        + " granted at " + g.grantedAt());
            }
            tally.granted(g);
            if (g.owner().equals(owner)) {
                // no waiter left (it was told "paused", or gave up): the orphan sweep ends the grant
                waiters.granted(g);
            }
        }
    }

    /** These calls left WAITING here without a grant (cancelled): their watches hear it. */
    void leftWaiting(List<Long> callIds) {
        watches.leftWaiting(callIds);
    }

    /** Another instance (or this one) announced grants: their watches hear it, and this instance's waiters. */
    void announced(List<Long> grantedIds) {
        watches.leftWaiting(delivering.isEmpty() ? grantedIds
                : grantedIds.stream().filter(id -> !delivering.contains(id)).toList());
        Set<Long> mine = waiters.callIds();
        List<Long> ours = grantedIds.stream().filter(mine::contains).toList();
        if (!ours.isEmpty()) {
            fromTable(ours);
        }
    }

    /** The poll: what the table says of every call waited on or watched here. */
    void poll() throws StoreUnavailable {
        fromTable(waiters.callIds());
        Set<Long> watched = watches.callIds();
        if (!watched.isEmpty()) {
            // a call the table does not have (never was, or gone) has left WAITING too: its watch must not stay. A
            // grant of this instance's being delivered is left to its pass, which brings the call whole (the poll
            // can read it between the pass's commit and its delivery)
            Set<Long> waiting = reads.waiting(watched);
            watches.leftWaiting(watched.stream().filter(id -> !waiting.contains(id) && !delivering.contains(id))
                    .toList());
        }
    }

    private void fromTable(Collection<Long> ids) {
        if (ids.isEmpty() || health.isPaused()) {
            return;
        }
        try {
            for (CallRow row : reads.notWaiting(ids)) {
                if (row.state() == CallState.GRANTED) {
                    waiters.granted(row.grant());
                } else if (row.state() != CallState.WAITING) {
                    waiters.ended(row.id(), new CallEndedException("call " + row.id() + " left the line without a "
                            + "grant: " + row.state()));
                }
            }
        } catch (StoreUnavailable e) {
            health.failed(e);
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "checking waiting calls failed", e);
        }
    }
}
