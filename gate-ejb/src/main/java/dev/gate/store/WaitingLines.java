package dev.gate.store;

import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The lines with waiting calls, as the slot loop reads them at every pass: each limit's next beat slot and the end of
 * its cool-down, with the database's clock, in one statement.
 */
public final class WaitingLines {

    // The slots of the limits with waiting calls, and the database's clock (one row with it alone when there are
    // none). WAITING as a literal, not a parameter: the line's partial index (WHERE state = 'WAITING') serves only a
    // predicate the planner can prove, also in a generic plan of a server-prepared statement.
    static final String WITH_WAITING_CALLS = """
            SELECT clock_timestamp() AS now, s.limit_name, s.next_slot_at, s.paused_until
            FROM (SELECT 1) one LEFT JOIN (
                SELECT s.limit_name, s.next_slot_at, s.paused_until FROM gate_slot s
                WHERE EXISTS (SELECT 1 FROM gate_call c WHERE c.limit_name = s.limit_name AND c.state = 'WAITING')) s
            ON true
            ORDER BY s.limit_name""";

    private final Tx tx;

    public WaitingLines(Tx tx) {
        this.tx = tx;
    }

    /** The limits the slot loop looks at: those with waiting calls, in name order. */
    public WaitingLimits withWaitingCalls() throws StoreUnavailable {
        // one statement, committed as it answers: the loop reads this at every slot, so a transaction of its own
        // with a separate read of the clock (three round trips through JPA) would make every send later
        return tx.runAlone(c -> {
            try (PreparedStatement ps = c.prepareStatement(WITH_WAITING_CALLS);
                 java.sql.ResultSet rs = ps.executeQuery()) {
                Instant now = null;
                List<WaitingLimits.Due> due = new ArrayList<>();
                while (rs.next()) {
                    now = Times.get(rs, "now");
                    String limit = rs.getString("limit_name");
                    if (limit != null) {
                        Instant paused = Times.get(rs, "paused_until");
                        due.add(new WaitingLimits.Due(limit, Times.get(rs, "next_slot_at"),
                                paused != null && paused.isAfter(now) ? paused : null));
                    }
                }
                return new WaitingLimits(now, System.nanoTime(), due);
            }
        });
    }
}
