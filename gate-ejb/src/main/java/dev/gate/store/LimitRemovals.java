package dev.gate.store;

import dev.gate.domain.LimitRemoval;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A limit's removal with its history (a template's: with its keys), in one transaction of explicit SQL: the checks
 * first, under the limit's locks, then the deletes a batch per statement; a refusal changes nothing.
 */
public final class LimitRemovals {

    // Removal is one transaction: the checks first, under the limit's locks, then the history in batches (each
    // statement short), then the limit. A refusal, a failure or a crash part-way changes nothing.
    // The limit and its keys: the calls and sends of both go with it.
    private static final String LIMIT_AND_KEYS =
            "(SELECT CAST(? AS varchar) UNION ALL SELECT name FROM gate_limit WHERE template_name = ?)";

    private static final String DROP_FINISHED_CALLS = """
            DELETE FROM gate_call WHERE id IN (
                SELECT id FROM gate_call WHERE limit_name IN %s AND state NOT IN ('WAITING', 'GRANTED') LIMIT ?)"""
            .formatted(LIMIT_AND_KEYS);

    // By row address (a TID scan): no index on the send's id (its key is the limit and the send number). A send that
    // its limit's longest window (and margin) still counts is kept aside under the limit's name until it leaves it:
    // the limit declared again takes it back (gate_limit_add_slot), as the vendor still counts it. Answers how many
    // sends went.
    static final String DROP_SENDS = """
            WITH gone AS (
                DELETE FROM gate_send WHERE ctid = ANY (ARRAY(SELECT ctid FROM gate_send WHERE limit_name IN %s LIMIT ?))
                RETURNING limit_name, sent_at),
            span AS (
                SELECT l.name, (greatest(l.window_ms + %s, l.min_interval_ms,
                                         (SELECT coalesce(max(r.window_ms + %s), 0) FROM gate_limit_rule r
                                          WHERE r.limit_name = l.name))
                                + coalesce(l.receipt_margin_ms, 100)) * interval '1 millisecond' AS span
                FROM gate_limit l WHERE l.name IN (SELECT DISTINCT limit_name FROM gone)),
            kept AS (
                INSERT INTO gate_removed_send (limit_name, sent_at, keep_until)
                SELECT g.limit_name, g.sent_at, g.sent_at + span.span FROM gone g JOIN span ON span.name = g.limit_name
                WHERE g.sent_at + span.span > clock_timestamp())
            SELECT count(*) FROM gone"""
            .formatted(LIMIT_AND_KEYS, Retention.ALIGNED_EXTRA.formatted("l"), Retention.ALIGNED_EXTRA.formatted("r"));

    // A template's keys, a batch at a time (each takes its slot, rules and turns by cascade).
    private static final String DROP_KEYS = """
            DELETE FROM gate_limit WHERE name IN (SELECT name FROM gate_limit WHERE template_name = ? LIMIT ?)""";

    // The limit's row, FOR UPDATE: a join's insert (its foreign key's KEY SHARE) and a key's open (FOR SHARE) wait
    // for the removal's end, and a join that inserted before it is committed (and counted) first.
    private static final String LOCK_LIMIT = "SELECT 1 FROM gate_limit WHERE name = ? FOR UPDATE";

    // The last step waits for the limit's slot lock, so no grant runs while the limit goes.
    private static final String LOCK_SLOT = "SELECT 1 FROM gate_slot WHERE limit_name = ? FOR UPDATE";

    // A limit with waiting or granted calls is kept (a template: with its keys'); the operator hears how many.
    private static final String LIVE_CALLS = """
            SELECT count(*) FROM gate_call WHERE limit_name IN %s AND state IN ('WAITING', 'GRANTED')"""
            .formatted(LIMIT_AND_KEYS);

    // The slot row, the extra rules and the saved-sends count go with it (ON DELETE CASCADE).
    private static final String DROP_LIMIT = "DELETE FROM gate_limit WHERE name = ?";

    /** Rows per statement of a removal: each well inside the statement timeout. */
    private static final int BATCH = 2_000;

    private final Tx tx;

    public LimitRemovals(Tx tx) {
        this.tx = tx;
    }

    /**
     * Removes a limit that has no live (waiting or granted) calls and names no child, with its history (a template:
     * with its keys). One transaction: the slot and the limit's row are locked (no grant, join or key open runs on
     * it meanwhile), checked, and only then is anything deleted, a batch per statement; a refusal changes nothing.
     * A call that joins one of a template's keys meanwhile keeps it (the foreign key refuses the removal, which rolls
     * back whole, and the answer counts the live calls again).
     */
    public LimitRemoval remove(String name, String actor) throws StoreUnavailable {
        try {
            return tx.run(c -> {
                if (!exists(c, LOCK_SLOT, name) || !exists(c, LOCK_LIMIT, name)) {
                    return new LimitRemoval(false, false, 0);
                }
                long live = liveCalls(c, name);
                if (live > 0) {
                    return new LimitRemoval(false, true, live);
                }
                List<String> children = children(c, name);
                if (!children.isEmpty()) {
                    throw new LimitTable.Refused("limit '" + name + "' is the parent of " + children
                            + ": change or remove those first");
                }
                while (batch(c, DROP_FINISHED_CALLS, name, name) == BATCH) {
                    // the calls first: nothing cascades to them
                }
                while (dropSends(c, name) == BATCH) {
                    // the send log before the limits whose cascade would take it in one statement
                }
                while (batch(c, DROP_KEYS, name) == BATCH) {
                    // a template's keys
                }
                try (PreparedStatement ps = c.prepareStatement(DROP_LIMIT)) {
                    ps.setString(1, name);
                    ps.executeUpdate();
                }
                ActionLog.record(c, new ActionLog.Entry(actor, "remove-limit", "limit " + name, null));
                return new LimitRemoval(true, true, 0);
            });
        } catch (IllegalStateException e) {
            if (e.getCause() instanceof java.sql.SQLException sql && "23503".equals(sql.getSQLState())) {
                return new LimitRemoval(false, true, tx.run(c -> liveCalls(c, name)));
            }
            throw e;
        }
    }

    private static boolean exists(java.sql.Connection c, String lock, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(lock)) {
            ps.setString(1, name);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static List<String> children(java.sql.Connection c, String name) throws java.sql.SQLException {
        try (PreparedStatement ps = c.prepareStatement(LimitTable.CHILDREN.replace("?1", "?"))) {
            ps.setString(1, name);
            List<String> out = new ArrayList<>();
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
            return out;
        }
    }

    /** One batch of a removal: the statement's names, then the batch size; how many rows went. */
    private static int batch(java.sql.Connection c, String sql, String... names) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            for (String n : names) {
                ps.setString(i++, n);
            }
            ps.setInt(i, BATCH);
            return ps.executeUpdate();
        }
    }

    /** One batch of the limit's (and its keys') sends, those its windows still count kept aside; how many went. */
    private static long dropSends(java.sql.Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(DROP_SENDS)) {
            ps.setString(1, name);
            ps.setString(2, name);
            ps.setInt(3, BATCH);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static long liveCalls(java.sql.Connection c, String name) throws java.sql.SQLException {
        try (PreparedStatement ps = c.prepareStatement(LIVE_CALLS)) {
            ps.setString(1, name);
            ps.setString(2, name);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
