package dev.gate.store;

import dev.gate.client.GatePausedException;
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

    private final Tx tx;

    public LimitTable(Tx tx) {
        this.tx = tx;
    }

    /** Creates the limit or changes it in place, with all its options; true when it was created. */
    public boolean put(String name, Pace pace, LimitOptions options) throws GatePausedException {
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

    /** Adds the limit unless one of that name exists; true when it was added. */
    public boolean declare(String name, Pace pace) throws GatePausedException {
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
