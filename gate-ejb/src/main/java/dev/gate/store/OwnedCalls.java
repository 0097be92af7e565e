package dev.gate.store;

import dev.gate.api.CallState;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Optional;

/**
 * What a call's owner does to it: this instance's callers cancel the calls they wait on, or leave them when they are
 * gone; a program cancels, abandons or renews its own calls only (another's call is as good as absent).
 */
public final class OwnedCalls {

    // Only a waiting call leaves: a grant that won the race stays the caller's to take.
    private static final String CANCEL = """
            UPDATE gate_call SET state = 'CANCELLED', done_at = clock_timestamp()
            WHERE id = ? AND state = 'WAITING'""";

    // The caller is gone (interrupted, failed): a waiting call leaves the line, and a grant it can no longer take
    // ends as ABANDONED, so that nothing stays granted to nobody and its keys are free.
    private static final String LEAVE = """
            UPDATE gate_call SET state = CASE state WHEN 'WAITING' THEN 'CANCELLED' ELSE 'ABANDONED' END,
                                 done_at = clock_timestamp()
            WHERE id = ? AND state IN ('WAITING', 'GRANTED')
            RETURNING state""";

    // A program cancels its own waiting call only; another's call is as good as absent.
    private static final String CANCEL_OWNED = """
            UPDATE gate_call SET state = 'CANCELLED', done_at = clock_timestamp()
            WHERE id = ? AND owner = ? AND state = 'WAITING'""";

    // A program gives its grant up without calling the vendor: the slot is spent, its keys are free at once.
    private static final String ABANDON_OWNED = """
            UPDATE gate_call SET state = 'ABANDONED', done_at = clock_timestamp()
            WHERE id = ? AND owner = ? AND state = 'GRANTED'""";

    // A granted call's lease may be renewed too: a long vendor call keeps its keys until its outcome.
    private static final String RENEW_ONE = """
            UPDATE gate_call SET lease_expires_at = clock_timestamp() + lease_ms * interval '1 millisecond'
            WHERE id = ? AND owner = ? AND state IN ('WAITING', 'GRANTED')""";

    // A program's heartbeat: one statement (the owner index) renews all of its waiting calls.
    private static final String RENEW_ALL = """
            UPDATE gate_call SET lease_expires_at = clock_timestamp() + lease_ms * interval '1 millisecond'
            WHERE owner = ? AND state = 'WAITING'""";

    private final Tx tx;

    public OwnedCalls(Tx tx) {
        this.tx = tx;
    }

    /** WAITING to CANCELLED; false when the call was no longer waiting (granted, expired, ...). */
    public boolean cancel(long id) throws StoreUnavailable {
        return update(CANCEL, id) == 1;
    }

    /** Its caller is gone: WAITING to CANCELLED, GRANTED to ABANDONED; the state it ended in, empty if it had ended. */
    public Optional<CallState> leave(long id) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(LEAVE)) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(CallState.valueOf(rs.getString(1))) : Optional.empty();
                }
            }
        });
    }

    /** WAITING to CANCELLED, for the owner only; false when not waiting or not theirs. */
    public boolean cancelOwned(long id, String owner) throws StoreUnavailable {
        return ownedUpdate(CANCEL_OWNED, id, owner) == 1;
    }

    /** GRANTED to ABANDONED, for the owner only; false when not granted or not theirs. */
    public boolean abandonOwned(long id, String owner) throws StoreUnavailable {
        return ownedUpdate(ABANDON_OWNED, id, owner) == 1;
    }

    /** Renews one waiting or granted call's lease, for the owner only. */
    public boolean renew(long id, String owner) throws StoreUnavailable {
        return ownedUpdate(RENEW_ONE, id, owner) == 1;
    }

    /** Renews, in one statement, the leases of every waiting call of {@code owner}; answers how many. */
    public int renewAll(String owner) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(RENEW_ALL)) {
                ps.setString(1, owner);
                return ps.executeUpdate();
            }
        });
    }

    private int ownedUpdate(String sql, long id, String owner) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setLong(1, id);
                ps.setString(2, owner);
                return ps.executeUpdate();
            }
        });
    }

    private int update(String sql, long id) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setLong(1, id);
                return ps.executeUpdate();
            }
        });
    }
}
