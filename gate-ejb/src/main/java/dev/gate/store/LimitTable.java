package dev.gate.store;

import dev.gate.client.GatePausedException;
import dev.gate.line.Pace;

import java.sql.PreparedStatement;

/** Limits: declared at deployment (a declaration only adds; the table is the truth), or put by an operator. */
public final class LimitTable {

    private static final String DECLARE = """
            INSERT INTO gate_limit (name, calls, window_ms) VALUES (?, ?, ?)
            ON CONFLICT (name) DO NOTHING""";

    // Creates or changes a limit. The slot row stays: a change takes effect at the next slot, never as a burst.
    private static final String PUT = """
            INSERT INTO gate_limit (name, calls, window_ms) VALUES (?, ?, ?)
            ON CONFLICT (name) DO UPDATE
                SET calls = EXCLUDED.calls, window_ms = EXCLUDED.window_ms, updated_at = clock_timestamp()
            RETURNING (xmax = 0) AS created""";

    private final Tx tx;

    public LimitTable(Tx tx) {
        this.tx = tx;
    }

    /** Creates the limit or changes it in place; true when it was created. */
    public boolean put(String name, Pace pace) throws GatePausedException {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(PUT)) {
                ps.setString(1, name);
                ps.setInt(2, pace.calls());
                ps.setLong(3, pace.window().toMillis());
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getBoolean("created");
                }
            }
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
