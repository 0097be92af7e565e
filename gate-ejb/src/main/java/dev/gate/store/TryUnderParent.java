package dev.gate.store;

import dev.gate.api.CallClass;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * A try now on a key under a parent limit: the key's slot locked, the parent's slot claimed ({@link ParentSlot}), then
 * the try statement ({@link FreeSlot}) on the key, and the grant it makes takes one of the parent's sends too.
 */
final class TryUnderParent {

    // A try on a key under a parent locks the key's slot first (and learns whether its key was sent before).
    // Parameters: owner, submission key, limit.
    private static final String LOCK_KEY = """
            SELECT EXISTS (SELECT 1 FROM gate_call WHERE owner = ? AND submission_key = ?) AS prior
            FROM gate_slot s WHERE s.limit_name = ? FOR UPDATE OF s""";

    /** Come back after this when a grant pass holds the parent's slot: it is granting on it right now. */
    static final Duration PARENT_BUSY = Duration.ofMillis(20);

    private final Tx tx;

    TryUnderParent(Tx tx) {
        this.tx = tx;
    }

    /**
     * A try on a key under {@code parent}: the key's slot and the parent's must both be free now, and no call of
     * this class or a higher one may wait in the parent's own line. One transaction of four round trips (a try on a
     * limit without a parent stays one statement): the key's slot is locked, then the parent's (lock order: key, then
     * parent, as a grant pass takes them; SKIP LOCKED, so a try never queues behind a pass), and the parent is
     * decided before the key's statement records the send, which is therefore never before the parent's slot.
     * {@code sql}: the try statement, {@link FreeSlot#TRY} or {@link FreeSlot#CONSUME}.
     */
    Optional<FreeSlot.Result> takeUnder(String limit, String parent, CallClass callClass, String program,
                                        String owner, Duration lease, String key, FreeSlot.TryStatement sql)
            throws StoreUnavailable {
        return tx.run(c -> takeUnder(c, sql, limit, parent, callClass, program, owner, lease, key));
    }

    private static Optional<FreeSlot.Result> takeUnder(Connection c, FreeSlot.TryStatement sql, String limit, String parent,
                                                       CallClass callClass, String program, String owner,
                                                       Duration lease, String key) throws SQLException {
        boolean prior;
        try (PreparedStatement ps = c.prepareStatement(LOCK_KEY)) {
            ps.setString(1, owner);
            ps.setString(2, key);
            ps.setString(3, limit);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty(); // no such key (removed as idle): the caller opens it again
                }
                prior = rs.getBoolean("prior");
            }
        }
        if (prior) { // sent again: answered as it is, nothing taken
            return FreeSlot.take(c, sql, limit, parent, callClass, program, owner, lease, key);
        }
        ParentSlot.Claim claim = ParentSlot.claim(c, parent, callClass, PARENT_BUSY);
        if (claim.slot() == null) {
            return Optional.of(new FreeSlot.Result(Optional.empty(), claim.notNow(), null, null, false));
        }
        Optional<FreeSlot.Result> result = FreeSlot.take(c, sql, limit, parent, callClass, program, owner, lease,
                key);
        if (result.isPresent() && result.get().grant().isPresent() && !result.get().repeated()) {
            claim.slot().took(c, result.get().grant().get());
        }
        return result;
    }
}
