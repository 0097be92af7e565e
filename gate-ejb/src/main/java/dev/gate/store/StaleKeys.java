package dev.gate.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The stale keys of keyed limits: keys older than their template's latest change, brought to its rules again (its
 * columns and its more rules), a batch of keys per transaction, after the change commits or, when that follow was cut
 * short, at a later prune.
 */
public final class StaleKeys {

    // A template's change reaches its keys after it commits, a batch of keys per transaction (100,000 keys would not
    // fit one statement's time): each key older than its template's latest change takes its rules again. A key
    // opened after the change copied them already (its row is newer). A followed key is never older than its
    // template, even if the database's clock stepped back since the change: it would be stale again, and the follow
    // would never end. Parameters: template, batch, template.
    private static final String FOLLOW = """
            WITH stale AS (
                SELECT k.name FROM gate_limit k JOIN gate_limit t ON t.name = k.template_name
                WHERE k.template_name = ? AND k.updated_at < t.updated_at
                ORDER BY k.updated_at
                LIMIT ?
                FOR UPDATE OF k)
            UPDATE gate_limit k SET calls = t.calls, window_ms = t.window_ms, min_interval_ms = t.min_interval_ms,
                   retry_floor_ms = t.retry_floor_ms, cooldown_ladder_ms = t.cooldown_ladder_ms,
                   step_down_after = t.step_down_after, receipt_margin_ms = t.receipt_margin_ms,
                   starving_after_ms = t.starving_after_ms, aging_after_ms = t.aging_after_ms,
                   aging_up_to = t.aging_up_to, fair_programs = t.fair_programs, burst = t.burst,
                   adaptive = t.adaptive, parent_name = t.parent_name, max_waiting = t.max_waiting,
                   max_waiting_per_program = t.max_waiting_per_program, max_cooldown_ms = t.max_cooldown_ms,
                   aligned_zone = t.aligned_zone, aligned_at = t.aligned_at,
                   updated_at = greatest(clock_timestamp(), t.updated_at)
            FROM gate_limit t, stale WHERE k.name = stale.name AND t.name = ?
            RETURNING k.name""";

    // The templates with a key older than their latest change: its follow after commit did not run to the end (the
    // database was lost, a key's row was locked). Asked at every prune, so each template is one index lookup, its
    // oldest key, whatever its number of keys.
    static final String MISSED = """
            SELECT t.name FROM gate_limit t
            WHERE t.keyed AND (SELECT min(k.updated_at) FROM gate_limit k WHERE k.template_name = t.name) < t.updated_at""";

    private static final String DROP_RULES = "DELETE FROM gate_limit_rule WHERE limit_name = ANY (?)";

    // Each key takes its own template's more rules. Parameters: keys.
    private static final String COPY_RULES = """
            INSERT INTO gate_limit_rule (limit_name, calls, window_ms, aligned_zone, aligned_at)
            SELECT k.name, r.calls, r.window_ms, r.aligned_zone, r.aligned_at FROM gate_limit k
            JOIN gate_limit_rule r ON r.limit_name = k.template_name
            WHERE k.name = ANY (?)""";

    /** Keys that follow their template's change in one transaction. */
    public static final int FOLLOW_BATCH = 2_000;

    private final Tx tx;

    public StaleKeys(Tx tx) {
        this.tx = tx;
    }

    /** Brings every key of {@code template} to its rules as they are now; answers how many keys changed. */
    public int follow(String template) throws StoreUnavailable {
        int total = 0;
        for (int n = -1; n != 0; ) {
            n = follow(template, FOLLOW_BATCH);
            total += n;
        }
        return total;
    }

    /** At most {@code batch} keys of {@code template} brought to its rules, in one transaction; answers how many. */
    public int follow(String template, int batch) throws StoreUnavailable {
        return tx.run(c -> followBatch(c, template, batch));
    }

    /** The templates with keys that missed their latest change (see {@link #MISSED}). */
    public List<String> missed() throws StoreUnavailable {
        return tx.run(c -> {
            List<String> templates = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(MISSED); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    templates.add(rs.getString(1));
                }
            }
            return templates;
        });
    }

    private static int followBatch(Connection c, String template, int batch) throws SQLException {
        List<String> names = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(FOLLOW)) {
            ps.setString(1, template);
            ps.setInt(2, batch);
            ps.setString(3, template);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
        }
        if (names.isEmpty()) {
            return 0;
        }
        java.sql.Array array = c.createArrayOf("varchar", names.toArray());
        try (PreparedStatement ps = c.prepareStatement(DROP_RULES)) {
            ps.setArray(1, array);
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement(COPY_RULES)) {
            ps.setArray(1, array);
            ps.executeUpdate();
        }
        return names.size();
    }
}
