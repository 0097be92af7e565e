package dev.gate.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Joiners of a live call: a submission with a dedupe key joins the live call of its limit and key instead of adding
 * one to the line, and is recorded as its joiner with the send it saved. In the join's transaction ({@link Joins}).
 */
final class Joiners {

    // FOR SHARE: the call cannot finish while it is being joined (a grant may still move it to GRANTED: the lock
    // waits for it and reads the row again). The joiner never touches the slot row: the granter locks the slot row,
    // then call rows, and a joiner holding a call row while waiting for the slot row would close a cycle.
    private static final String LIVE_WITH_KEY = """
            SELECT id FROM gate_call
            WHERE limit_name = ? AND dedupe_key = ? AND state IN ('WAITING', 'GRANTED')
            FOR SHARE""";

    // A joiner is recorded and the saved send counted in one round trip; gate_saved, never the slot row (lock order).
    // With its submission key: a concurrent retry of the same submission that committed first makes this a no-op
    // (the unique index waits for it), and nothing is counted.
    private static final String ADD_JOINER = """
            WITH j AS (INSERT INTO gate_call_joiner (call_id, program, owner, submission_key) VALUES (?, ?, ?, ?)
                       ON CONFLICT (owner, submission_key) WHERE submission_key IS NOT NULL DO NOTHING
                       RETURNING call_id)
            INSERT INTO gate_saved (limit_name, saved_sends) SELECT ?, 1 FROM j
            ON CONFLICT (limit_name) DO UPDATE SET saved_sends = gate_saved.saved_sends + 1""";

    private Joiners() {
    }

    /** The live call (WAITING or GRANTED) of {@code limit} with the dedupe {@code key}, locked for share. */
    static Optional<Long> liveWithKey(java.sql.Connection c, String limit, String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(LIVE_WITH_KEY)) {
            ps.setString(1, limit);
            ps.setString(2, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(rs.getLong(1)) : Optional.empty();
            }
        }
    }

    /**
     * Records {@code program} (as {@code owner}, with its submission {@code key} or null) as a joiner of the live
     * call {@code callId}, and counts the send it saved; false when a retry of the same submission was recorded
     * first (nothing written: the retry's key finds it).
     */
    static boolean add(java.sql.Connection c, long callId, String program, String owner, String key, String limit)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(ADD_JOINER)) {
            ps.setLong(1, callId);
            ps.setString(2, program);
            ps.setString(3, owner);
            ps.setString(4, key);
            ps.setString(5, limit);
            return ps.executeUpdate() == 1;
        }
    }
}
