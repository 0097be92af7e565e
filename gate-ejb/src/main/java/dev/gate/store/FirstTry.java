package dev.gate.store;

import dev.gate.api.CallClass;
import dev.gate.rules.Cost;
import dev.gate.domain.Grant;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A join's first try at the free line, when its line may be free: the try statement run so that it never queues behind
 * a grant pass ({@link FreeSlot#FREE_LINE}), then, when another caller holds the slot's lock, once more after waiting
 * for that lock. A key used before takes nothing here: the join finds its call.
 */
final class FirstTry {

    // The free line's lock wait: the slot of a plain limit (no turns, no parent), held until the try's commit; not
    // taken at all while any live call waits in the line (one whose lease runs and whose owner can take a grant). Then a grant pass may hold the lock (it holds it through
    // its wait for the slot, and grants what joined meanwhile): the call joins at once, never queueing behind a pass
    // that would give the slot to the line meanwhile. The try statement decides exactly once the lock is held.
    // A limit with a burst allowance is never queued on: its grant passes grant runs (every call due at one moment in
    // one statement), so callers that meet on its lock join the line and are granted together, which beat taking the
    // lock one after the other (SideBySide, 16 callers: 1,722 against 1,025 a second).
    // Marked as the try's own lock is, and sent with the decision before one Sync (FreeSlot.decidedAfter).
    private static final String LOCK_FREE_LINE = """
            SELECT s.limit_name FROM gate_slot s JOIN gate_limit l ON l.name = s.limit_name
            WHERE s.limit_name = ? AND NOT l.keyed AND NOT l.fair_programs AND l.parent_name IS NULL AND l.burst = 1
              AND NOT EXISTS (SELECT 1 FROM gate_call w
                              WHERE w.limit_name = s.limit_name AND w.state = 'WAITING'
                                AND w.lease_expires_at > clock_timestamp() AND """ + InstanceLock.OWNER_ALIVE + """
            )
            FOR UPDATE OF s""";

    private static final FreeSlot.TryStatement QUEUED = FreeSlot.decidedAfter(LOCK_FREE_LINE);

    // Acquires that arrived together, queued on the lock as one group (as QUEUED).
    private static final FreeSlot.GroupStatement QUEUED_TOGETHER = new FreeSlot.GroupStatement(LOCK_FREE_LINE);

    private final Tx tx;
    private final JoinsWhenLocked joinsWhenLocked = new JoinsWhenLocked();

    FirstTry(Tx tx) {
        this.tx = tx;
    }

    /**
     * A join's first step when its line may be free: a new GRANTED call of {@code owner} if the slot is free this
     * moment and nobody of this class or a higher one waits (no WAITING row, no notification: nobody else can know
     * the new id). One round trip when the slot's lock is free; when another caller holds it, one more that waits for
     * the lock (a queue on the lock gives the next caller the slot), each deciding once the lock is held. Empty, and nothing written, when the line is not free, the limit's programs take
     * turns, the key was used before, or there is no such limit: the caller joins the line as usual then.
     */
    Optional<Grant> takeIfFree(String limit, CallClass callClass, Cost cost, String program, String owner,
                               Duration lease, String key) throws StoreUnavailable {
        Optional<FreeSlot.Result> first = tx.runAlone(c -> takeFree(c, FreeSlot.FREE_LINE, limit, callClass, cost,
                program, owner, lease, key));
        if (first.isPresent()) {
            return first.flatMap(FirstTry::newGrant); // granted, or not free now
        }
        // the slot's lock was held (or there is no such limit, or its programs take turns): queue on the lock, but only
        // while nothing waits in the line (the holder is another caller on the free line then, never a grant pass)
        if (joinsWhenLocked.joins(limit)) {
            return Optional.empty();
        }
        Optional<FreeSlot.Result> queued = tx.runAlone(c -> takeFree(c, QUEUED, limit, callClass, cost, program,
                owner, lease, key));
        if (queued.isEmpty()) {
            joinsWhenLocked.noted(limit); // no such limit, or one the free line leaves to the join
        }
        return queued.flatMap(FirstTry::newGrant);
    }

    /**
     * Acquires of {@code limit} that arrived together, as {@link #takeIfFree} each, in one round trip and one commit
     * (class order inside: {@link FreeSlot#together}); when the lock is held, queued on it once for the group. A try's
     * answer is empty, or a key found before, where it joins the line.
     */
    List<FreeSlot.Decided> takeIfFreeTogether(String limit, List<FreeSlot.Try> tries) throws StoreUnavailable {
        List<FreeSlot.Decided> first = tx.runAlone(c -> FreeSlot.together(c, FreeSlot.FREE_TOGETHER, limit, tries));
        if (lockTaken(first) || joinsWhenLocked.joins(limit)) {
            return first;
        }
        List<FreeSlot.Decided> queued = tx.runAlone(c -> FreeSlot.together(c, QUEUED_TOGETHER, limit, tries));
        if (!lockTaken(queued)) {
            joinsWhenLocked.noted(limit); // no such limit, or one the free line leaves to the join
        }
        return queued;
    }

    /** The group's statement took the slot's lock: a try was decided (a key found before is read without it). */
    private static boolean lockTaken(List<FreeSlot.Decided> answers) {
        return answers.stream().anyMatch(d -> d.result().isPresent() && d.result().get().now() != null);
    }

    private static Optional<FreeSlot.Result> takeFree(Connection c, FreeSlot.TryStatement sql, String limit,
                                                      CallClass callClass, Cost cost, String program, String owner,
                                                      Duration lease, String key) throws SQLException {
        try {
            return FreeSlot.take(c, sql, limit, null, callClass, cost, program, owner, lease, key);
        } catch (SubmissionKeyReused e) {
            return Optional.of(new FreeSlot.Result(Optional.empty(), Duration.ZERO, null, null, true));
        }
    }

    /** A result's new grant: none for a key used before (the join finds that call, or refuses the key itself). */
    private static Optional<Grant> newGrant(FreeSlot.Result r) {
        return r.repeated() ? Optional.empty() : r.grant();
    }
}
