package dev.gate.store;

import dev.gate.client.CallClass;
import dev.gate.client.GatePausedException;

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

    private static final String RENEW_OWNED = """
            UPDATE gate_call SET lease_expires_at = clock_timestamp() + lease_ms * interval '1 millisecond'
            WHERE owner = ? AND state = 'WAITING' AND id = ANY (?)""";

    private static final String EXPIRE_LAPSED = """
            UPDATE gate_call SET state = 'EXPIRED', done_at = clock_timestamp()
            WHERE state = 'WAITING' AND lease_expires_at <= clock_timestamp()
            RETURNING id, limit_name, call_class, owner""";

    private static final String EXPIRE_PAST_DEADLINE = """
            UPDATE gate_call SET state = 'EXPIRED', done_at = clock_timestamp()
            WHERE state = 'WAITING' AND deadline_at IS NOT NULL AND deadline_at <= clock_timestamp()
            RETURNING id, limit_name, call_class, owner""";

    // Calls of this instance whose waiter left without a grant (woken by an outage, a failed fast path): they must
    // not be granted to nobody.
    private static final String CANCEL_ORPHANS = """
            UPDATE gate_call SET state = 'CANCELLED', done_at = clock_timestamp()
            WHERE owner = ? AND state = 'WAITING' AND id = ANY (?)
            RETURNING id, limit_name, call_class, owner""";

    private static final String CANCEL_OWNED = """
            UPDATE gate_call SET state = 'CANCELLED', done_at = clock_timestamp()
            WHERE owner = ? AND state = 'WAITING'
            RETURNING id, limit_name, call_class, owner""";

    /** A call cleared from the line without a grant. */
    public record Cleared(long callId, String limit, CallClass callClass, String owner) {
    }

    private final Tx tx;

    public Leases(Tx tx) {
        this.tx = tx;
    }

    /**
     * Renews, in one statement, the leases of this instance's calls that still have a live waiter. A call whose
     * waiter gave up is not renewed, so it expires instead of being granted to nobody.
     */
    public int renewOwned(String owner, Collection<Long> liveCallIds) throws GatePausedException {
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

    public List<Cleared> expireLapsed() throws GatePausedException {
        return clear(EXPIRE_LAPSED, null);
    }

    /** Waiting calls whose deadline passed: EXPIRED, never granted. */
    public List<Cleared> expirePastDeadline() throws GatePausedException {
        return clear(EXPIRE_PAST_DEADLINE, null);
    }

    /** Takes out of the line those of these calls of this instance that still wait (their waiters left). */
    public List<Cleared> cancelOrphans(String owner, Collection<Long> abandonedCallIds) throws GatePausedException {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(CANCEL_ORPHANS)) {
                ps.setString(1, owner);
                ps.setArray(2, c.createArrayOf("bigint", abandonedCallIds.toArray()));
                return cleared(ps);
            }
        });
    }

    /** Takes an instance's waiting calls out of the line (it is shutting down cleanly). */
    public List<Cleared> cancelOwned(String owner) throws GatePausedException {
        return clear(CANCEL_OWNED, owner);
    }

    private List<Cleared> clear(String sql, String owner) throws GatePausedException {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                if (owner != null) {
                    ps.setString(1, owner);
                }
                return cleared(ps);
            }
        });
    }

    private static List<Cleared> cleared(PreparedStatement ps) throws SQLException {
        List<Cleared> cleared = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                cleared.add(new Cleared(rs.getLong("id"), rs.getString("limit_name"),
                        CallClass.ofRank(rs.getInt("call_class")), rs.getString("owner")));
            }
        }
        return cleared;
    }
}
