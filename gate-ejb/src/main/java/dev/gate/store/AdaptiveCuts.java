package dev.gate.store;

import dev.gate.rules.AdaptiveRate;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.logging.Logger;

/**
 * An adaptive limit's rate cut by the vendor's "slow down" (at most once a window, as {@link AdaptiveRate} says), in
 * the outcome's transaction, under the slot lock the signal took.
 */
final class AdaptiveCuts {

    private static final Logger LOG = Logger.getLogger(AdaptiveCuts.class.getName());

    // An adaptive limit's rate, under the slot lock a signal takes (CoolDowns' LOCK_COOLDOWN): read, then cut.
    private static final String ADAPTIVE = """
            SELECT l.adaptive, l.calls, l.window_ms, s.adaptive_calls, s.adaptive_cut_at
            FROM gate_slot s JOIN gate_limit l ON l.name = s.limit_name
            WHERE s.limit_name = ?""";

    private static final String CUT = "UPDATE gate_slot SET adaptive_calls = ?, adaptive_cut_at = ? WHERE limit_name = ?";

    private AdaptiveCuts() {
    }

    /** An adaptive limit's rate is cut by a signal (at most once a window); other limits are left as they are. */
    static void adapt(Connection c, String limit, long callId, int status, Instant now) throws SQLException {
        int from;
        int to;
        try (PreparedStatement ps = c.prepareStatement(ADAPTIVE)) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || !rs.getBoolean("adaptive")) {
                    return;
                }
                AdaptiveRate rate = new AdaptiveRate(rs.getInt("calls"), Duration.ofMillis(rs.getLong("window_ms")));
                int cutTo = rs.getInt("adaptive_calls");
                Integer lastCut = rs.wasNull() ? null : cutTo;
                Instant cutAt = Times.get(rs, "adaptive_cut_at");
                if (!rate.mayCut(cutAt, now)) {
                    return;
                }
                from = rate.effective(lastCut, cutAt, now);
                to = rate.afterSignal(from);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(CUT)) {
            ps.setInt(1, to);
            Times.set(ps, 2, now);
            ps.setString(3, limit);
            ps.executeUpdate();
        }
        LOG.info(() -> "limit " + limit + " adaptive rate cut from " + from + " to " + to + " calls per window: call "
                + callId + " was answered " + status);
    }
}
