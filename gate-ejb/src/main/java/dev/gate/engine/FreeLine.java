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
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A new call's first try: a line that may be free (nobody waits, the slot is due) grants it in one statement
 * ({@link FreeSlot#takeIfFree}), before it joins anything. A call this does not grant joins the line ({@link Joining}).
 */
final class FreeLine {

    private static final Logger LOG = Logger.getLogger(FreeLine.class.getName());

    private final Admission admission;
    private final FreeSlot freeSlot;
    private final Waiters waiters;
    private final Tally tally;

    FreeLine(Admission admission, FreeSlot freeSlot, Waiters waiters, Tally tally) {
        this.admission = admission;
        this.freeSlot = freeSlot;
        this.waiters = waiters;
        this.tally = tally;
    }

    /**
     * The free line's one statement. Without the program's own key the call gets one, so that a grant whose answer
     * was lost is ended once the database answers again ({@link Waiters#unansweredTry}): the caller hears "paused",
     * and nothing stays granted to nobody. A busy moment is no answer: the join goes on as usual.
     */
    Optional<Grant> take(String limit, CallClass callClass, dev.gate.rules.Cost cost, String program, String owner,
                         Duration lease, String submissionKey) throws GateException {
        String key = submissionKey != null ? submissionKey : "free:" + UUID.randomUUID();
        try {
            return admission.run(() -> {
                try {
                    return freeSlot.takeIfFree(limit, callClass, cost, program, owner, lease, key);
                } catch (StoreUnavailable lost) { // it may have committed: the answer did not come back
                    if (submissionKey == null) {
                        waiters.unansweredTry(owner, key);
                    }
                    throw lost;
                }
            }, 1);
        } catch (GateBusyException busy) {
            return Optional.empty();
        } catch (GatePausedException paused) {
            tally.turnedAwayPaused(); // a call, as at the join
            throw paused;
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "a call on limit " + limit + " failed on its free line", e);
            throw new GateFailedException("the gate failed to take a call on limit " + limit
                    + "; nothing joined (see the gate's log)", e);
        }
    }
}
