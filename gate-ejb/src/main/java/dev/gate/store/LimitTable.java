package dev.gate.store;

import dev.gate.client.GatePausedException;
import dev.gate.line.Pace;

import java.sql.PreparedStatement;

/** Limits declared at deployment. The table is the truth once a limit exists: a declaration only adds. */
public final class LimitTable {

    private static final String DECLARE = """
            INSERT INTO gate_limit (name, calls, window_ms) VALUES (?, ?, ?)
            ON CONFLICT (name) DO NOTHING""";

    private final Tx tx;

    public LimitTable(Tx tx) {
        this.tx = tx;
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
