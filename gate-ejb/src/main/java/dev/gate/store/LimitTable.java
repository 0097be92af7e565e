package dev.gate.store;

import dev.gate.line.LimitOptions;
import dev.gate.line.Pace;

import java.time.Duration;

import java.sql.PreparedStatement;

/** Limits: declared at deployment (a declaration only adds; the table is the truth), or put by an operator. */
public final class LimitTable {

    private static final String DECLARE = """
            INSERT INTO gate_limit (name, calls, window_ms) VALUES (?, ?, ?)
            ON CONFLICT (name) DO NOTHING""";

    // Creates or changes a limit. The slot row stays: a change takes effect at the next slot, never as a burst.
    private static final String PUT = """
            INSERT INTO gate_limit (name, calls, window_ms, min_interval_ms, retry_floor_ms, cooldown_ladder_ms,
                                    step_down_after)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (name) DO UPDATE
                SET calls = EXCLUDED.calls, window_ms = EXCLUDED.window_ms,
                    min_interval_ms = EXCLUDED.min_interval_ms, retry_floor_ms = EXCLUDED.retry_floor_ms,
                    cooldown_ladder_ms = EXCLUDED.cooldown_ladder_ms, step_down_after = EXCLUDED.step_down_after,
                    updated_at = clock_timestamp()
            RETURNING (xmax = 0) AS created""";

    private static final String DROP_RULES = "DELETE FROM gate_limit_rule WHERE limit_name = ?";

    private static final String ADD_RULE = "INSERT INTO gate_limit_rule (limit_name, calls, window_ms) VALUES (?, ?, ?)";

    // Removal, in small batches first (history that nothing reads), then the limit itself under its slot lock.
    private static final String DROP_FINISHED_CALLS = """
            DELETE FROM gate_call WHERE id IN (
                SELECT id FROM gate_call WHERE limit_name = ? AND state NOT IN ('WAITING', 'GRANTED') LIMIT ?)""";

    private static final String DROP_SENDS = """
            DELETE FROM gate_send WHERE id IN (SELECT id FROM gate_send WHERE limit_name = ? LIMIT ?)""";

    private static final String LOCK_SLOT = "SELECT 1 FROM gate_slot WHERE limit_name = ? FOR UPDATE";

    private static final String LIVE_CALLS = """
            SELECT count(*) FROM gate_call WHERE limit_name = ? AND state IN ('WAITING', 'GRANTED')""";

    // The slot row, the send log, the extra rules and the saved-sends count go with it (ON DELETE CASCADE).
    private static final String DROP_LIMIT = "DELETE FROM gate_limit WHERE name = ?";

    private static final int BATCH = 5_000;

    /** What removing a limit did: removed, there was no such limit, or it still has live calls (how many). */
    public record Removal(boolean removed, boolean found, long liveCalls) {
    }

    private final Tx tx;

    public LimitTable(Tx tx) {
        this.tx = tx;
    }

    /** Creates the limit or changes it in place, with all its options; true when it was created. */
    public boolean put(String name, Pace pace, LimitOptions options) throws StoreUnavailable {
        return tx.run(c -> {
            boolean created;
            try (PreparedStatement ps = c.prepareStatement(PUT)) {
                ps.setString(1, name);
                ps.setInt(2, pace.calls());
                ps.setLong(3, pace.window().toMillis());
                ps.setLong(4, options.minInterval().toMillis());
                ps.setLong(5, options.coolDown().floor().toMillis());
                ps.setArray(6, c.createArrayOf("bigint",
                        options.coolDown().steps().stream().map(Duration::toMillis).toArray()));
                ps.setInt(7, options.coolDown().stepDownAfter());
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    created = rs.getBoolean("created");
                }
            }
            try (PreparedStatement ps = c.prepareStatement(DROP_RULES)) {
                ps.setString(1, name);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(ADD_RULE)) {
                for (Pace rule : options.moreRules()) {
                    ps.setString(1, name);
                    ps.setInt(2, rule.calls());
                    ps.setLong(3, rule.window().toMillis());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            return created;
        });
    }

    /**
     * Removes a limit that has no live (waiting or granted) calls, with its history. A call that joins meanwhile
     * keeps it (the foreign key refuses the removal, and the answer counts the live calls again).
     */
    public Removal remove(String name) throws StoreUnavailable {
        while (batch(DROP_FINISHED_CALLS, name) == BATCH || batch(DROP_SENDS, name) == BATCH) {
            // history goes in batches of their own transactions, so none of them holds locks for long
        }
        try {
            return tx.run(c -> {
                try (PreparedStatement ps = c.prepareStatement(LOCK_SLOT)) {
                    ps.setString(1, name);
                    try (java.sql.ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) {
                            return new Removal(false, false, 0);
                        }
                    }
                }
                long live = liveCalls(c, name);
                if (live > 0) {
                    return new Removal(false, true, live);
                }
                try (PreparedStatement ps = c.prepareStatement(
                        "DELETE FROM gate_call WHERE limit_name = ? AND state NOT IN ('WAITING', 'GRANTED')")) {
                    ps.setString(1, name);
                    ps.executeUpdate();
                }
                try (PreparedStatement ps = c.prepareStatement(DROP_LIMIT)) {
                    ps.setString(1, name);
                    ps.executeUpdate();
                }
                return new Removal(true, true, 0);
            });
        } catch (IllegalStateException e) {
            if (e.getCause() instanceof java.sql.SQLException sql && "23503".equals(sql.getSQLState())) {
                return new Removal(false, true, tx.run(c -> liveCalls(c, name)));
            }
            throw e;
        }
    }

    private int batch(String sql, String name) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setString(1, name);
                ps.setInt(2, BATCH);
                return ps.executeUpdate();
            }
        });
    }

    private static long liveCalls(java.sql.Connection c, String name) throws java.sql.SQLException {
        try (PreparedStatement ps = c.prepareStatement(LIVE_CALLS)) {
            ps.setString(1, name);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Adds the limit unless one of that name exists; true when it was added. */
    public boolean declare(String name, Pace pace) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(DECLARE)) {
                ps.setString(1, name);
                ps.setInt(2, pace.calls());
                ps.setLong(3, pace.window().toMillis());
                return ps.executeUpdate() == 1;
            }
        });
    }
}
