package dev.gate.engine;

import dev.gate.api.GateException;
import dev.gate.api.GateFailedException;
import dev.gate.store.FreeSlot;
import dev.gate.store.StoreUnavailable;
import dev.gate.wait.Waiters;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Tries of this instance arriving at a limit with no parent together are decided together ({@link JoinGroups}): one
 * round trip and one commit for the group, each in class order by the try's own decision and writing as its kind does
 * ({@link FreeSlot#takeTogether}); one alone is its own statement. Where every request pays the gate's cost, callers
 * that meet on a limit's slot lock share its commit instead of queuing for one each.
 */
final class GroupTrying {

    private static final Logger LOG = Logger.getLogger(GroupTrying.class.getName());

    /** Benchmarks only ({@code -Dgate.try.alone=true}): every try decided on its own. */
    static final boolean ALONE = Boolean.getBoolean("gate.try.alone");

    /**
     * A try of a group. {@code ownKey}: its key is this instance's, not the caller's; if the database's answer is
     * lost, the instance ends the grant it may have made once the database answers again ({@link Waiters#unansweredTry}).
     */
    record Member(FreeSlot.Try t, boolean ownKey) {
    }

    private final Admission admission;
    private final FreeSlot freeSlot;
    private final Waiters waiters;
    private final JoinGroups<Member, FreeSlot.Decided> groups =
            new JoinGroups<>(this::takeGroup, FreeSlot.MOST_TOGETHER);

    // tries decided in a group of two or more, since start (tests: that groups formed)
    private final AtomicLong grouped = new AtomicLong();

    GroupTrying(Admission admission, FreeSlot freeSlot, Waiters waiters) {
        this.admission = admission;
        this.freeSlot = freeSlot;
        this.waiters = waiters;
    }

    /** Tries decided in a group of two or more since this instance started. */
    long grouped() {
        return grouped.get();
    }

    /** The groups of tries (for tests: who waits for a group). */
    JoinGroups<?, ?> groups() {
        return groups;
    }

    /** A try of {@code limit} (no parent), with whoever arrives with it; empty: no such limit. */
    Optional<FreeSlot.Result> take(String limit, Member member) throws GateException {
        if (ALONE) {
            return alone(limit, member).get();
        }
        FreeSlot.Decided decided;
        try {
            decided = groups.join(limit, member);
        } catch (GateException | RuntimeException e) {
            throw e;
        } catch (Exception e) { // logged once, by the group's leader (takeGroup)
            throw new GateFailedException("the gate failed to decide a try on limit " + limit
                    + "; nothing was taken (see the gate's log)", e);
        }
        return decided.get(); // a key used before elsewhere: this caller's error alone
    }

    /** One try by its own statement. */
    private FreeSlot.Decided alone(String limit, Member m) throws GateException {
        FreeSlot.Try t = m.t();
        return admission.run(() -> {
            try {
                return new FreeSlot.Decided(freeSlot.take(limit, t.callClass(), t.cost(), t.program(), t.owner(),
                        t.lease(), t.key(), t.consume()), null);
            } catch (dev.gate.store.SubmissionKeyReused e) {
                return new FreeSlot.Decided(Optional.empty(), e);
            } catch (StoreUnavailable lost) { // it may have committed: the answer did not come back
                unanswered(List.of(m));
                throw lost;
            }
        });
    }

    /** A group's tries: one alone by its own statement, more in one round trip and one commit. */
    private List<FreeSlot.Decided> takeGroup(String limit, List<Member> members) throws GateException {
        try {
            if (members.size() == 1) {
                return List.of(alone(limit, members.get(0)));
            }
            List<FreeSlot.Decided> answers = admission.run(() -> {
                try {
                    return freeSlot.takeTogether(limit, members.stream().map(Member::t).toList());
                } catch (StoreUnavailable lost) { // it may have committed: the answer did not come back
                    unanswered(members);
                    throw lost;
                }
            });
            grouped.addAndGet(members.size());
            return answers;
        } catch (RuntimeException e) {
            // the operators' log has the cause once; each member hears the step, not the database's text
            LOG.log(Level.SEVERE, members.size() + " tries on limit " + limit + " failed together", e);
            throw e;
        }
    }

    /** Tries whose answer was lost: those with this instance's key are ended once the database answers again. */
    private void unanswered(List<Member> members) {
        unanswered(waiters, members);
    }

    /** As above, told to {@code waiters}. */
    static void unanswered(Waiters waiters, List<Member> members) {
        for (Member m : members) {
            if (m.ownKey()) {
                waiters.unansweredTry(m.t().owner(), m.t().key());
            }
        }
    }
}
