package dev.gate.engine;

import dev.gate.api.GateException;
import dev.gate.api.GatePausedException;
import dev.gate.domain.CallRow;
import dev.gate.domain.Grant;
import dev.gate.wait.StateWatches;
import dev.gate.wait.Waiters;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Who hears of a joining call's grant ({@link Joining.Hears}): registered before the call's row commits, so no grant
 * can come before it, and dropped again when the join's transaction fails. Shared by a call joining alone
 * ({@link Joining}) and calls joining together ({@link GroupJoining}).
 */
final class Hearers {

    private final Waiters waiters;
    private final StateWatches<CallRow> watches;

    Hearers(Waiters waiters, StateWatches<CallRow> watches) {
        this.waiters = waiters;
        this.watches = watches;
    }

    /** Who hears of {@code callId}'s grant, registered before its row commits; a rolled-back try's is dropped. */
    void registered(long callId, Joining.Hears hears, AtomicReference<Long> inserted,
                    AtomicReference<CompletableFuture<Grant>> granted,
                    AtomicReference<CompletableFuture<CallRow>> watch) {
        Long before = inserted.getAndSet(callId);
        if (before != null) {
            waiters.drop(before); // an earlier try that rolled back: nothing to sweep
        }
        if (hears == Joining.Hears.WAITER) {
            granted.set(waiters.register(callId));
        } else if (hears == Joining.Hears.WATCH) {
            // a rolled-back join's watch ends at the next poll (Delivery)
            watch.set(watches.watch(callId));
        }
    }

    /**
     * The join's transaction failed after its row was written: rolled back (nothing in the line), unless the
     * database was lost (then nobody knows whether it committed, and the orphan sweep ends the call if it did).
     */
    GateException failed(Long callId, GateException e) {
        if (callId != null) {
            if (e instanceof GatePausedException) {
                waiters.orphaned(callId);
            } else {
                waiters.drop(callId);
            }
        }
        return e;
    }
}
