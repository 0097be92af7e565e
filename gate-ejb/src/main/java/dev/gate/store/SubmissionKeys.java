package dev.gate.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * A program's submission keys (gate_call.submission_key, unique per owner; a dedupe joiner's in gate_call_joiner,
 * likewise): a retried submission whose answer was lost finds the call it made, or joined, with the key, whatever
 * became of it, and never makes a second; the same key for another limit is the program's mistake
 * ({@link SubmissionKeyReused}). In the join's transaction ({@link Joins}).
 */
final class SubmissionKeys {

    // A retried submission: the call the program already made with this key, or joined by a dedupe key, whatever
    // became of it (a joiner's key is kept while its call is: it goes with the call). A program that used one key for
    // both (its mistake) hears of the call it made.
    private static final String SUBMITTED_BEFORE = """
            SELECT id, limit_name, false AS joined FROM gate_call WHERE owner = ? AND submission_key = ?
            UNION ALL
            SELECT c.id, c.limit_name, true FROM gate_call_joiner j JOIN gate_call c ON c.id = j.call_id
            WHERE j.owner = ? AND j.submission_key = ?
            ORDER BY joined LIMIT 1""";

    private SubmissionKeys() {
    }

    /**
     * The call {@code owner} made, or joined, before with the submission {@code key}, as a repeated join; empty:
     * none.
     */
    static Optional<Joins.Joined> submittedBefore(java.sql.Connection c, String owner, String key, String limit)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SUBMITTED_BEFORE)) {
            ps.setString(1, owner);
            ps.setString(2, key);
            ps.setString(3, owner);
            ps.setString(4, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                if (!rs.getString("limit_name").equals(limit)) {
                    throw new SubmissionKeyReused(key, rs.getString("limit_name"));
                }
                return Optional.of(new Joins.Joined(rs.getLong("id"), rs.getBoolean("joined"), true));
            }
        }
    }
}
