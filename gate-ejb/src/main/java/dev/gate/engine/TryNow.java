package dev.gate.engine;

import dev.gate.api.Attempt;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.GateException;
import dev.gate.api.Permit;
import dev.gate.api.UnknownLimitException;
import dev.gate.api.SubmissionKeyReusedException;
import dev.gate.store.FreeSlot;
import dev.gate.store.StoreUnavailable;
import dev.gate.store.SubmissionKeyReused;
import dev.gate.wait.Waiters;
import dev.gate.domain.Grant;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Logger;

/**
 * Try now (the inbound case: a request either goes now or is told when to come back): a slot free at this moment is
 * granted to a new call, else the caller learns when to try again and the line keeps nothing. One round trip
 * ({@link FreeSlot}: the slot row locked, then the decision); a key under a parent takes that parent's slot too
 * ({@code TryUnderParent}); tries of a limit with no parent that meet are decided together ({@link GroupTrying}).
 */
final class TryNow {

    private static final Logger LOG = Logger.getLogger(TryNow.class.getName());

    private final EngineSettings settings;
    private final Admission admission;
    private final FreeSlot freeSlot;
    private final Tally tally;
    private final Waiters waiters;
    private final KeyedLines lines;
    private final CallCosts costs;
    private final GroupTrying together;

    TryNow(EngineSettings settings, Admission admission, FreeSlot freeSlot, Tally tally, Waiters waiters,
           KeyedLines lines, CallCosts costs) {
        this.together = new GroupTrying(admission, freeSlot, waiters);
        this.costs = costs;
        this.lines = lines;
        this.waiters = waiters;
        this.settings = settings;
        this.admission = admission;
        this.freeSlot = freeSlot;
        this.tally = tally;
    }

    /** The tries deciding together (for tests: their groups, and how many went in one). */
    GroupTrying together() {
        return together;
    }

    /** A try's answer, and whether its key named a grant made before (a try sent again: nothing new taken). */
    record Answer(Attempt attempt, boolean repeated) {
    }

    /**
     * @param key the caller's key for this try (a program's Idempotency-Key), or null: this instance makes one, and
     *            if the database's answer is lost it ends the grant the try may have made once the database answers
     *            again ({@link Waiters#unansweredTry}), so nothing stays granted to a caller told "paused"; a consume
     *            without one gets none (its call ends at its grant, and no call row records it: its sends do)
     */
    Answer attempt(String limit, CallClass callClass, String program, String owner, CallOptions options, String key)
            throws GateException {
        return attempt(limit, callClass, program, owner, options, key, false);
    }

    /**
     * As above; {@code consume}: the try consumes (the call is the request itself, an inbound limit's): granted and
     * ended in the same statement, DONE, with no lease and no outcome to report ({@link FreeSlot#CONSUME}).
     */
    Answer attempt(String limit, CallClass callClass, String program, String owner, CallOptions options, String key,
                   boolean consume) throws GateException {
        return lines.onLine(limit, options,
                (line, parent) -> attemptOn(line, parent, callClass, program, owner, options, key, consume));
    }

    /**
     * {@link #attempt} on the line the try takes a slot of (its limit's, or its key's); {@code parent}: the key's
     * parent, whose slot it takes too.
     */
    private Answer attemptOn(String limit, String parent, CallClass callClass, String program, String owner,
                             CallOptions options, String key, boolean consume) throws GateException {
        if (options.deadline() != null || options.concurrencyKey() != null || options.dedupeKey() != null) {
            throw new IllegalArgumentException("a try takes no deadline, concurrency key or dedupe key: it is granted "
                    + "now or not at all");
        }
        if (consume && options.lease() != null) {
            throw new IllegalArgumentException("a consuming try takes no lease: its call ends at its grant");
        }
        Duration lease = Joining.checkedLease(settings, limit, program, callClass, options.lease());
        dev.gate.rules.Cost cost = costs.checked(limit, parent, options);
        // a try without the caller's key gets one of this instance's, to end its grant if the answer is lost; a
        // consume without one has nothing to end (its call ended at its grant) and no row to find (FreeSlot.SENT_ONLY)
        String tryKey = key != null || consume ? key : "try:" + UUID.randomUUID();
        Optional<FreeSlot.Result> taken;
        try {
            // a try of a limit with no parent: decided with those that come with it
            taken = parent == null
                    ? together.take(limit, new GroupTrying.Member(new FreeSlot.Try(callClass, cost, program, owner,
                            lease, tryKey, consume), key == null && !consume))
                    : admission.run(() -> {
                        try {
                            return freeSlot.takeUnder(limit, parent, callClass, program, owner, lease, tryKey,
                                    consume);
                        } catch (StoreUnavailable lost) { // it may have committed: the answer did not come back
                            if (key == null && !consume) {
                                waiters.unansweredTry(owner, tryKey);
                            }
                            throw lost;
                        }
                    });
        } catch (SubmissionKeyReused e) {
            throw new SubmissionKeyReusedException(e.getMessage());
        }
        FreeSlot.Result result = taken.orElseThrow(() -> new UnknownLimitException(limit));
        if (result.grant().isEmpty()) {
            FreeSlot.Result refused = result;
            LOG.fine(() -> "limit=" + limit + " class=" + callClass + ": try by " + program + " refused, retry after "
                    + refused.retryAfter().toMillis() + " ms");
            return new Answer(Attempt.notNow(result.retryAfter()), false);
        }
        Grant g = result.grant().get();
        if (result.repeated()) {
            LOG.fine(() -> "call " + g.callId() + " limit=" + limit + ": try by " + program + " sent again, answered");
            return new Answer(Attempt.granted(new Permit(g.callId(), limit, g.callClass(), g.enqueuedAt(),
                    g.grantedAt())), true);
        }
        tally.granted(g);
        LOG.fine(() -> "call " + g.callId() + " limit=" + limit + " class=" + callClass
                + (consume ? " consumed at once (try) by " : " granted at once (try) to ") + program);
        return new Answer(Attempt.granted(new Permit(g.callId(), limit, callClass, g.enqueuedAt(), g.grantedAt())),
                false);
    }
}
