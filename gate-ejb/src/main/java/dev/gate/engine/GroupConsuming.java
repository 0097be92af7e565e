package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.GateException;
import dev.gate.api.GateFailedException;
import dev.gate.rules.Cost;
import dev.gate.store.FreeSlot;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Consumes without a key of this instance arriving at a limit together are decided together ({@link JoinGroups}):
 * one round trip and one commit for the group, each in class order by the try's own decision
 * ({@link FreeSlot#consumeTogether}); one alone is the consume's own statement. Where every request pays the gate's
 * cost, callers that meet on a limit's slot lock share its commit instead of queuing for one each.
 */
final class GroupConsuming {

    private static final Logger LOG = Logger.getLogger(GroupConsuming.class.getName());

    /** Benchmarks only ({@code -Dgate.consume.alone=true}): every consume decided on its own. */
    static final boolean ALONE = Boolean.getBoolean("gate.consume.alone");

    private final Admission admission;
    private final FreeSlot freeSlot;
    private final JoinGroups<FreeSlot.Consume, Optional<FreeSlot.Result>> groups =
            new JoinGroups<>(this::consumeGroup, FreeSlot.MOST_TOGETHER);

    // consumes decided in a group of two or more, since start (tests: that groups formed)
    private final java.util.concurrent.atomic.AtomicLong grouped = new java.util.concurrent.atomic.AtomicLong();

    GroupConsuming(Admission admission, FreeSlot freeSlot) {
        this.admission = admission;
        this.freeSlot = freeSlot;
    }

    /** Consumes decided in a group of two or more since this instance started. */
    long grouped() {
        return grouped.get();
    }

    /** The groups of consumes (for tests: who waits for a group). */
    JoinGroups<?, ?> groups() {
        return groups;
    }

    /** A consume of {@code limit} (no parent, cost 1, no key), with whoever arrives with it; empty: no such limit. */
    Optional<FreeSlot.Result> consume(String limit, CallClass callClass, String program, String owner)
            throws GateException {
        FreeSlot.Consume consume = new FreeSlot.Consume(callClass, program, owner);
        if (ALONE) {
            return alone(limit, consume);
        }
        try {
            return groups.join(limit, consume);
        } catch (GateException | RuntimeException e) {
            throw e;
        } catch (Exception e) { // logged once, by the group's leader (consumeGroup)
            throw new GateFailedException("the gate failed to decide a consume on limit " + limit
                    + "; nothing was taken (see the gate's log)", e);
        }
    }

    /** One consume by its own statement (a consume's as it was before groups: no key, no lease). */
    private Optional<FreeSlot.Result> alone(String limit, FreeSlot.Consume m) throws GateException {
        return admission.run(() -> freeSlot.take(limit, m.callClass(), Cost.ONE, m.program(), m.owner(),
                Duration.ZERO, null, true));
    }

    /** A group's consumes: one alone by its own statement, more in one round trip and one commit. */
    private List<Optional<FreeSlot.Result>> consumeGroup(String limit, List<FreeSlot.Consume> members)
            throws GateException {
        try {
            if (members.size() == 1) {
                return List.of(alone(limit, members.get(0)));
            }
            Optional<List<FreeSlot.Result>> answers = admission.run(() -> freeSlot.consumeTogether(limit, members));
            grouped.addAndGet(members.size());
            return answers.map(a -> a.stream().map(Optional::of).toList())
                    .orElseGet(() -> Collections.nCopies(members.size(), Optional.empty()));
        } catch (RuntimeException e) {
            // the operators' log has the cause once; each member hears the step, not the database's text
            LOG.log(Level.SEVERE, members.size() + " consumes on limit " + limit + " failed together", e);
            throw e;
        }
    }
}
