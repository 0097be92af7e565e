package dev.gate.store;

import dev.gate.api.CallClass;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Leases of waiting calls: one statement renews every waiting call of one gate instance (its heartbeat), and
 * lapsed leases are cleared to EXPIRED so that they are never granted.
 */
public final class Leases {

    // The heartbeat: one statement (the owner index) for every call this instance's callers still wait on.
    static final String RENEW_OWNED = """
            UPDATE gate_call SET lease_expires_at = clock_timestamp() + lease_ms * interval '1 millisecond'
            WHERE owner = ? AND state = 'WAITING' AND id = ANY (?)""";

    // A sweep: a batch of the calls in one state whose time ran out, oldest first, by that time's partial index; SKIP
    // LOCKED passes a row that a grant or another sweep holds (or a stuck session: the next batch goes on without
    // it). now(), the transaction's start (one statement each), not clock_timestamp(): a stable value bounds the
    // index range. Parameters: the batch size.
    private static String sweep(String state, String ranOut, String becomes) {
        return """
                WITH due AS (
                    SELECT id FROM gate_call
                    WHERE state = '%s' AND %s <= now()
                    ORDER BY %s LIMIT ? FOR UPDATE SKIP LOCKED)
                UPDATE gate_call c SET state = '%s', done_at = clock_timestamp()
                FROM due WHERE c.id = due.id
                RETURNING c.id, c.limit_name, c.call_class, c.owner, c.state""".formatted(state, ranOut, ranOut, becomes);
    }

    // A dead program's or instance's waiting call: its lease ran out, so it ends, never granted (gate_call_lease).
    static final String EXPIRE_LAPSED = sweep("WAITING", "lease_expires_at", "EXPIRED");

    // A person will not wait forever: past its deadline a waiting call ends, never granted (gate_call_deadline: the
    // index holds only calls with a deadline, so "deadline_at <= now()" alone finds them).
    static final String EXPIRE_PAST_DEADLINE = sweep("WAITING", "deadline_at", "EXPIRED");

    // A grant whose lease ran out without an outcome (its program crashed, or was cut off): it ends, so that its
    // dedupe and concurrency keys are free again. A late outcome still makes it DONE (gate_call_granted_lease).
    static final String ABANDON_LAPSED = sweep("GRANTED", "lease_expires_at", "ABANDONED");

    // Calls whose caller was told "not granted" (woken by an outage, a failed fast path, a program's failed join): a
    // waiting one leaves the line, and one granted meanwhile (the grant committed, but nobody takes it) ends.
    private static final String END_ORPHANS = """
            UPDATE gate_call SET state = CASE state WHEN 'WAITING' THEN 'CANCELLED' ELSE 'ABANDONED' END,
                                 done_at = clock_timestamp()
            WHERE state IN ('WAITING', 'GRANTED') AND id = ANY (?)
            RETURNING id, limit_name, call_class, owner, state""";

    // Tries whose answer was lost (the caller was told "paused"): a grant one of them made is ended, nobody takes it.
    private static final String END_UNANSWERED_TRIES = """
            UPDATE gate_call SET state = 'ABANDONED', done_at = clock_timestamp()
            WHERE owner = ? AND submission_key = ANY (?) AND state = 'GRANTED'
            RETURNING id, limit_name, call_class, owner, state""";

    // A clean stop: the stopping instance's waiting calls leave the line at once, not at their leases' end.
    private static final String CANCEL_ALL_OWNED = """
            UPDATE gate_call SET state = 'CANCELLED', done_at = clock_timestamp()
            WHERE owner = ? AND state = 'WAITING'
            RETURNING id, limit_name, call_class, owner, state""";

    /** A call that was ended here: cleared from the line, or a grant nobody took. */
    public record Cleared(long callId, String limit, CallClass callClass, String owner, String state) {
    }

    private final Tx tx;

    public Leases(Tx tx) {
        this.tx = tx;
    }

    /**
     * Renews, in one statement, the leases of this instance's calls that still have a live waiter. A call whose
     * waiter gave up is not renewed, so it expires instead of being granted to nobody.
     */
    public int renewOwned(String owner, Collection<Long> liveCallIds) throws StoreUnavailable {
        if (liveCallIds.isEmpty()) {
            return 0;
        }
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(RENEW_OWNED)) {
                ps.setString(1, owner);
                ps.setArray(2, c.createArrayOf("bigint", liveCallIds.toArray()));
                return ps.executeUpdate();
            }
        });
    }

    /** At most {@code batch} waiting calls whose lease ran out: EXPIRED, never granted. */
    public List<Cleared> expireLapsed(int batch) throws StoreUnavailable {
        return sweep(EXPIRE_LAPSED, batch);
    }

    /** At most {@code batch} granted calls whose lease ran out without an outcome: ABANDONED. */
    public List<Cleared> abandonLapsed(int batch) throws StoreUnavailable {
        return sweep(ABANDON_LAPSED, batch);
    }

    /** At most {@code batch} waiting calls whose deadline passed: EXPIRED, never granted. */
    public List<Cleared> expirePastDeadline(int batch) throws StoreUnavailable {
        return sweep(EXPIRE_PAST_DEADLINE, batch);
    }

    private List<Cleared> sweep(String sql, int batch) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setInt(1, batch);
                return cleared(ps);
            }
        });
    }

    /**
     * Ends these calls, whose callers were told they were not granted: still waiting, they leave the line
     * (CANCELLED); granted meanwhile, nobody takes the grant (ABANDONED).
     */
    public List<Cleared> endOrphans(Collection<Long> orphanCallIds) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(END_ORPHANS)) {
                ps.setArray(1, c.createArrayOf("bigint", orphanCallIds.toArray()));
                return cleared(ps);
            }
        });
    }

    /** Ends the grants these tries of {@code owner} made, if any: their callers were told "paused". */
    public List<Cleared> endUnansweredTries(String owner, Collection<String> keys) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(END_UNANSWERED_TRIES)) {
                ps.setString(1, owner);
                ps.setArray(2, c.createArrayOf("varchar", keys.toArray()));
                return cleared(ps);
            }
        });
    }

    /** Takes an instance's waiting calls out of the line (it is shutting down cleanly). */
    public List<Cleared> cancelAllOwned(String owner) throws StoreUnavailable {
        return clear(CANCEL_ALL_OWNED, owner);
    }

    private List<Cleared> clear(String sql, String owner) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                if (owner != null) {
                    ps.setString(1, owner);
                }
                return cleared(ps);
            }
        });
    }

    static List<Cleared> cleared(PreparedStatement ps) throws SQLException {
        List<Cleared> cleared = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                cleared.add(new Cleared(rs.getLong("id"), rs.getString("limit_name"),
                        CallClass.ofRank(rs.getInt("call_class")), rs.getString("owner"), rs.getString("state")));
            }
        }
        return cleared;
    }

}
