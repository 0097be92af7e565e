package dev.gate.store;

import dev.gate.api.CallClass;
import dev.gate.api.CallState;
import dev.gate.domain.Call;
import dev.gate.domain.CallRow;
import jakarta.persistence.TypedQuery;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Calls as they are read: one call (any, its owner's, or one a program joined by its dedupe key), and the poll that
 * tells this instance which of its watched calls still wait and which have left WAITING.
 */
public final class CallReads {

    // A call its owner owns or a program joined (by a dedupe key), with its joiners' count, in one plain statement: a
    // held HTTP answer reads its call with it once granted (the hot path's one read: through the ORM it took a tenth
    // of the server's CPU at 16 callers). Parameters: id, owner, program.
    static final String VISIBLE = """
            SELECT c.id, c.limit_name, c.call_class, c.program, c.owner, c.state, c.enqueued_at, c.lease_expires_at,
                   c.granted_at, c.outcome_status, c.outcome_retry_after_s,
                   (SELECT count(*) FROM gate_call_joiner j WHERE j.call_id = c.id) AS joiners
            FROM gate_call c
            WHERE c.id = ? AND (c.owner = ?
                                OR EXISTS (SELECT 1 FROM gate_call_joiner j WHERE j.call_id = c.id AND j.program = ?))""";

    // A consume without the caller's key has no call row: its sends are its record (FreeSlot.SENT_ONLY), found by its
    // id on their partial index (only such sends are in it); a key's parent's unit carries no owner and is not read.
    // Parameters: id, owner (null: anyone's).
    static final String SENT_ONLY = """
            SELECT s.limit_name, s.call_class, s.program, s.owner, min(s.sent_at) AS sent_at
            FROM gate_send s
            WHERE s.call_id = ? AND s.owner IS NOT NULL AND (s.owner = ?::varchar OR ?::varchar IS NULL)
            GROUP BY s.limit_name, s.call_class, s.program, s.owner
            LIMIT 1""";

    /** Call ids per poll statement (padded to a power of two by Hibernate, so few distinct statements). */
    static final int POLL_CHUNK = 512;

    private final Tx tx;
    private final Jpa jpa;

    public CallReads(Tx tx, Jpa jpa) {
        this.tx = tx;
        this.jpa = jpa;
    }

    /** The call, wherever it is recorded: its row, else (a consume without a key) its sends. */
    public Optional<CallRow> find(long id) throws StoreUnavailable {
        Optional<CallRow> row = jpa.run(em -> one(em.createNamedQuery(Call.VIEW, Object[].class).setParameter("id", id)));
        return row.isPresent() ? row : sentOnly(id, null);
    }

    /** The call, if {@code owner} owns it (another's call is as good as absent). */
    public Optional<CallRow> findOwned(long id, String owner) throws StoreUnavailable {
        Optional<CallRow> row = jpa.run(em -> one(em.createNamedQuery(Call.VIEW_OWNED, Object[].class)
                .setParameter("id", id).setParameter("owner", owner)));
        return row.isPresent() ? row : sentOnly(id, owner);
    }

    /**
     * A consume without a key, of {@code owner} (null: anyone's), as its sends record it: DONE at its grant, no lease,
     * no outcome; empty once they have left the log (its limit's longest window and the retention's margin after).
     */
    private Optional<CallRow> sentOnly(long id, String owner) throws StoreUnavailable {
        return tx.runAlone(c -> {
            try (PreparedStatement ps = c.prepareStatement(SENT_ONLY)) {
                ps.setLong(1, id);
                ps.setString(2, owner);
                ps.setString(3, owner);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.<CallRow>empty();
                    }
                    Instant sent = Times.get(rs, "sent_at");
                    return Optional.of(new CallRow(id, rs.getString("limit_name"),
                            CallClass.ofRank(rs.getInt("call_class")), rs.getString("program"), rs.getString("owner"),
                            CallState.DONE, sent, null, sent, null, null, 0));
                }
            }
        });
    }

    /** The call, if {@code owner} owns it or {@code program} joined it (by its dedupe key). */
    public Optional<CallRow> findVisible(long id, String owner, String program) throws StoreUnavailable {
        Optional<CallRow> row = visibleRow(id, owner, program);
        return row.isPresent() ? row : sentOnly(id, owner); // nobody joins a consume: its owner's alone
    }

    private Optional<CallRow> visibleRow(long id, String owner, String program) throws StoreUnavailable {
        return tx.runAlone(c -> {
            try (PreparedStatement ps = c.prepareStatement(VISIBLE)) {
                ps.setLong(1, id);
                ps.setString(2, owner);
                ps.setString(3, program);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.<CallRow>empty();
                    }
                    return Optional.of(new CallRow(rs.getLong("id"), rs.getString("limit_name"),
                            CallClass.ofRank(rs.getInt("call_class")), rs.getString("program"), rs.getString("owner"),
                            CallState.valueOf(rs.getString("state")), Times.get(rs, "enqueued_at"),
                            Times.get(rs, "lease_expires_at"), Times.get(rs, "granted_at"),
                            (Integer) rs.getObject("outcome_status"), (Integer) rs.getObject("outcome_retry_after_s"),
                            rs.getInt("joiners")));
                }
            }
        });
    }

    /** Which of these calls are still WAITING (an id the table does not have is not). One array parameter. */
    public java.util.Set<Long> waiting(Collection<Long> ids) throws StoreUnavailable {
        if (ids.isEmpty()) {
            return java.util.Set.of();
        }
        return tx.runAlone(c -> {
            try (java.sql.PreparedStatement ps = c.prepareStatement(
                    "SELECT id FROM gate_call WHERE id = ANY (?) AND state = 'WAITING'")) {
                ps.setArray(1, c.createArrayOf("bigint", ids.toArray()));
                java.util.Set<Long> out = new java.util.HashSet<>();
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(rs.getLong(1));
                    }
                }
                return out;
            }
        });
    }

    /** Of the given calls, those that have left WAITING (granted, or ended without a grant): the poll. */
    public List<CallRow> notWaiting(Collection<Long> ids) throws StoreUnavailable {
        if (ids.isEmpty()) {
            return List.of();
        }
        List<Long> all = List.copyOf(ids);
        return jpa.run(em -> {
            List<CallRow> rows = new ArrayList<>();
            // a bounded number of bind parameters per statement, however many calls this instance watches
            for (int from = 0; from < all.size(); from += POLL_CHUNK) {
                em.createNamedQuery(Call.NOT_WAITING, Object[].class)
                        .setParameter("ids", all.subList(from, Math.min(all.size(), from + POLL_CHUNK)))
                        .getResultStream().map(CallReads::row).forEach(rows::add);
            }
            return rows;
        });
    }

    private static Optional<CallRow> one(TypedQuery<Object[]> query) {
        return query.getResultStream().findFirst().map(CallReads::row);
    }

    private static CallRow row(Object[] r) {
        Call c = (Call) r[0];
        return new CallRow(c.id(), c.limitName(), c.callClass(), c.program(), c.owner(), c.state(), c.enqueuedAt(),
                c.leaseExpiresAt(), c.grantedAt(), c.outcomeStatus(), c.outcomeRetryAfterSeconds(),
                Math.toIntExact((Long) r[1]));
    }

}
