package dev.gate.engine;

import dev.gate.client.Attempt;
import dev.gate.client.CallClass;
import dev.gate.client.CallOptions;
import dev.gate.client.GateException;
import dev.gate.client.Permit;
import dev.gate.client.UnknownLimitException;
import dev.gate.store.FreeSlot;
import dev.gate.store.Grant;

import java.time.Duration;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Try now (the inbound case: a request either goes now or is told when to come back): a slot free at this moment is
 * granted to a new call, else the caller learns when to try again and the line keeps nothing. One round trip
 * ({@link FreeSlot}); a second only when the statement met a grant committed after its snapshot.
 */
final class TryNow {

    private static final Logger LOG = Logger.getLogger(TryNow.class.getName());

    /** Statements before the answer is "not now, one gap" (each stale one met a grant committed meanwhile). */
    static final int TRIES = 3;

    private final EngineSettings settings;
    private final Admission admission;
    private final FreeSlot freeSlot;
    private final Tally tally;

    TryNow(EngineSettings settings, Admission admission, FreeSlot freeSlot, Tally tally) {
        this.settings = settings;
        this.admission = admission;
        this.freeSlot = freeSlot;
        this.tally = tally;
    }

    /**
     * A try with the call's lease (its only option: a deadline, a concurrency key or a dedupe key has no meaning for
     * a call that is granted now or never).
     */
    Attempt attempt(String limit, CallClass callClass, String program, String owner, CallOptions options)
            throws GateException {
        if (options.deadline() != null || options.concurrencyKey() != null || options.dedupeKey() != null) {
            throw new IllegalArgumentException("a try takes no deadline, concurrency key or dedupe key: it is granted "
                    + "now or not at all");
        }
        Duration lease = Joining.checkedLease(settings, limit, callClass, options.lease());
        FreeSlot.Result result = null;
        for (int i = 0; i < TRIES && (result == null || result.stale()); i++) {
            Optional<FreeSlot.Result> taken = admission.run(() -> freeSlot.take(limit, callClass, program, owner,
                    lease));
            if (taken.isEmpty()) {
                throw new UnknownLimitException(limit);
            }
            result = taken.get();
        }
        if (result.grant().isEmpty()) {
            FreeSlot.Result refused = result;
            LOG.fine(() -> "limit=" + limit + " class=" + callClass + ": try by " + program + " refused, retry after "
                    + refused.retryAfter().toMillis() + " ms");
            return Attempt.notNow(result.retryAfter());
        }
        Grant g = result.grant().get();
        tally.granted(g);
        LOG.fine(() -> "call " + g.callId() + " limit=" + limit + " class=" + callClass + " granted at once (try) to "
                + program);
        return Attempt.granted(new Permit(g.callId(), limit, callClass, g.enqueuedAt(), g.grantedAt()));
    }
}
