package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.GateBusyException;
import dev.gate.api.GateException;
import dev.gate.api.GateFailedException;
import dev.gate.api.GatePausedException;
import dev.gate.domain.Grant;
import dev.gate.store.FreeSlot;
import dev.gate.store.StoreUnavailable;
import dev.gate.wait.Waiters;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A new call's first try: a line that may be free (nobody waits, the slot is due) grants it in one statement
 * ({@link FreeSlot#takeIfFree}), before it joins anything. Calls of this instance that meet on a limit's free line go
 * together, as tries do ({@link GroupTrying}): one round trip and one commit for the group, class order inside it
 * ({@link FreeSlot#takeIfFreeTogether}). A call this does not grant joins the line ({@link Joining}).
 */
final class FreeLine {

    private static final Logger LOG = Logger.getLogger(FreeLine.class.getName());

    private final Admission admission;
    private final FreeSlot freeSlot;
    private final Waiters waiters;
    private final Tally tally;
    private final JoinGroups<GroupTrying.Member, Optional<Grant>> groups =
            new JoinGroups<>(this::takeGroup, FreeSlot.MOST_TOGETHER);

    FreeLine(Admission admission, FreeSlot freeSlot, Waiters waiters, Tally tally) {
        this.admission = admission;
        this.freeSlot = freeSlot;
        this.waiters = waiters;
        this.tally = tally;
    }

    /** The groups on the free line (for tests: who waits for a group). */
    JoinGroups<?, ?> groups() {
        return groups;
    }

    /**
     * The free line's one statement, with whoever arrives with it. Without the program's own key the call gets one, so
     * that a grant whose answer was lost is ended once the database answers again ({@link Waiters#unansweredTry}): the
     * caller hears "paused", and nothing stays granted to nobody. A busy moment is no answer: the join goes on as usual.
     */
    Optional<Grant> take(String limit, CallClass callClass, dev.gate.rules.Cost cost, String program, String owner,
                         Duration lease, String submissionKey) throws GateException {
        String key = submissionKey != null ? submissionKey : "free:" + UUID.randomUUID();
        GroupTrying.Member m = new GroupTrying.Member(new FreeSlot.Try(callClass, cost, program, owner, lease, key,
                false), submissionKey == null);
        try {
            return GroupTrying.ALONE ? alone(limit, m) : groups.join(limit, m);
        } catch (GateBusyException busy) {
            return Optional.empty();
        } catch (GatePausedException paused) {
            tally.turnedAwayPaused(); // a call, as at the join
            throw paused;
        } catch (GateException e) {
            throw e;
        } catch (Exception e) { // logged once, by the group's leader (takeGroup)
            throw new GateFailedException("the gate failed to take a call on limit " + limit
                    + "; nothing joined (see the gate's log)", e);
        }
    }

    /** One acquire by its own statement. */
    private Optional<Grant> alone(String limit, GroupTrying.Member m) throws GateException {
        FreeSlot.Try t = m.t();
        return admission.run(() -> {
            try {
                return freeSlot.takeIfFree(limit, t.callClass(), t.cost(), t.program(), t.owner(), t.lease(),
                        t.key());
            } catch (StoreUnavailable lost) { // it may have committed: the answer did not come back
                GroupTrying.unanswered(waiters, List.of(m));
                throw lost;
            }
        }, 1);
    }

    /** A group's acquires: one alone by its own statement, more in one round trip and one commit. */
    private List<Optional<Grant>> takeGroup(String limit, List<GroupTrying.Member> members) throws GateException {
        try {
            if (members.size() == 1) {
                return List.of(alone(limit, members.get(0)));
            }
            List<FreeSlot.Decided> answers = admission.run(() -> {
                try {
                    return freeSlot.takeIfFreeTogether(limit, members.stream().map(GroupTrying.Member::t).toList());
                } catch (StoreUnavailable lost) { // it may have committed: the answer did not come back
                    GroupTrying.unanswered(waiters, members);
                    throw lost;
                }
            }, 1);
            // a new grant each, or none: not free, or a key used before (the join finds that call, or refuses the key)
            return answers.stream().map(d -> d.reused() != null ? Optional.<Grant>empty()
                    : d.result().flatMap(r -> r.repeated() ? Optional.empty() : r.grant())).toList();
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, members.size() + " calls on limit " + limit + " failed on their free line", e);
            throw e;
        }
    }
}
