package dev.gate.store;

import dev.gate.line.LimitKey;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The keys of keyed limits: each key's own limit row (a copy of its template's rules, with its own slot, line and
 * send log), opened by its first call and touched by each, and removed once idle. Explicit SQL: an open is one
 * upsert on the hot path, and the idle sweep locks and deletes in batches.
 */
public final class Keys {

    private static final String LIMIT_COLUMNS = """
            calls, window_ms, min_interval_ms, retry_floor_ms, cooldown_ladder_ms, step_down_after, receipt_margin_ms,
            starving_after_ms, aging_after_ms, aging_up_to, fair_programs, burst, adaptive, parent_name""";

    // Opens the key's row from its template, or touches it: the upsert waits for a sweep that holds the row and, if
    // that removed it, inserts it anew. A new key copies the template's more rules; its slot row comes by trigger.
    // Parameters: template, key name, key.
    private static final String OPEN = """
            WITH t AS (SELECT * FROM gate_limit WHERE name = ? AND keyed),
            k AS (
                INSERT INTO gate_limit (name, template_name, limit_key, key_used_at, """ + LIMIT_COLUMNS + """
            )
                SELECT ?, t.name, ?, clock_timestamp(), """ + LIMIT_COLUMNS + """
             FROM t
                ON CONFLICT (name) DO UPDATE SET key_used_at = excluded.key_used_at
                RETURNING name, template_name, parent_name, (xmax = 0) AS created),
            r AS (
                INSERT INTO gate_limit_rule (limit_name, calls, window_ms)
                SELECT k.name, r.calls, r.window_ms FROM k JOIN gate_limit_rule r ON r.limit_name = k.template_name
                WHERE k.created)
            SELECT name, created, parent_name FROM k""";

    private static final String TEMPLATE = "SELECT keyed, template_name FROM gate_limit WHERE name = ?";

    // An open first holds its template's row (FOR SHARE waits for a change of the template being committed), so the
    // upsert, a statement of its own with a snapshot taken after, copies the template's rules as they are now, and a
    // change that comes after sees the key (LimitTable's follow).
    private static final String HOLD_TEMPLATE = "SELECT 1 FROM gate_limit WHERE name = ? AND keyed FOR SHARE";

    // A key is idle when no call of it waits or is granted and nobody opened it for the grace time (a join follows its
    // open, and its finished calls still answer a retry or an outcome read). An idle key's finished calls go first,
    // a batch at a time (found by index, deleted by row address, as retention does). now() (the sweep's own
    // transaction's start), not clock_timestamp(): a stable value bounds an index range. Parameters: grace, per key,
    // batch.
    static final String KEY_HISTORY = """
            DELETE FROM gate_call WHERE ctid = ANY (ARRAY(
                SELECT f.ctid
                FROM gate_limit k
                CROSS JOIN LATERAL (
                    SELECT c.ctid FROM gate_call c
                    WHERE c.limit_name = k.name AND c.state NOT IN ('WAITING', 'GRANTED')
                    ORDER BY c.done_at
                    LIMIT ?) f
                WHERE k.template_name IS NOT NULL AND k.key_used_at < now() - ? * interval '1 millisecond'
                  AND NOT EXISTS (SELECT 1 FROM gate_call c WHERE c.limit_name = k.name AND c.state = 'WAITING')
                  AND NOT EXISTS (SELECT 1 FROM gate_call c WHERE c.limit_name = k.name AND c.state = 'GRANTED')
                LIMIT ?))""";

    // Then an idle key with no call left goes, unless a send of it is inside its longest window (a key made anew would
    // forget it and let a burst through) or a cool-down runs; its slot, rules and send log by cascade. SKIP LOCKED: a
    // key being opened or joined right now is kept for the next sweep. Parameters: grace, batch.
    static final String SWEEP = """
            WITH idle AS (
                SELECT k.name FROM gate_limit k JOIN gate_slot s ON s.limit_name = k.name
                WHERE k.template_name IS NOT NULL
                  AND k.key_used_at < now() - ? * interval '1 millisecond'
                  AND (s.paused_until IS NULL OR s.paused_until < now())
                  AND NOT EXISTS (SELECT 1 FROM gate_call c WHERE c.limit_name = k.name)
                  AND NOT EXISTS (SELECT 1 FROM gate_send g
                                  WHERE g.limit_name = k.name
                                    AND g.sent_at > now() - (GREATEST(k.window_ms, k.min_interval_ms,
                                        (SELECT coalesce(max(r.window_ms), 0) FROM gate_limit_rule r
                                         WHERE r.limit_name = k.name)) + coalesce(k.receipt_margin_ms, 1000))
                                        * interval '1 millisecond')
                LIMIT ?
                FOR UPDATE OF k, s SKIP LOCKED)
            DELETE FROM gate_limit l USING idle WHERE l.name = idle.name
            RETURNING l.template_name, l.limit_key""";

    // A template's change reaches its keys after it commits, a batch of keys per transaction (100,000 keys would not
    // fit one statement's time): each key older than its template's latest change takes its rules again. A key
    // opened after the change copied them already (its row is newer). Parameters: template, batch, template.
    private static final String FOLLOW = """
            WITH stale AS (
                SELECT k.name FROM gate_limit k JOIN gate_limit t ON t.name = k.template_name
                WHERE k.template_name = ? AND k.updated_at < t.updated_at
                LIMIT ?
                FOR UPDATE OF k)
            UPDATE gate_limit k SET calls = t.calls, window_ms = t.window_ms, min_interval_ms = t.min_interval_ms,
                   retry_floor_ms = t.retry_floor_ms, cooldown_ladder_ms = t.cooldown_ladder_ms,
                   step_down_after = t.step_down_after, receipt_margin_ms = t.receipt_margin_ms,
                   starving_after_ms = t.starving_after_ms, aging_after_ms = t.aging_after_ms,
                   aging_up_to = t.aging_up_to, fair_programs = t.fair_programs, burst = t.burst,
                   adaptive = t.adaptive, parent_name = t.parent_name, updated_at = clock_timestamp()
            FROM gate_limit t, stale WHERE k.name = stale.name AND t.name = ?
            RETURNING k.name""";

    private static final String DROP_RULES = "DELETE FROM gate_limit_rule WHERE limit_name = ANY (?)";

    private static final String COPY_RULES = """
            INSERT INTO gate_limit_rule (limit_name, calls, window_ms)
            SELECT n.name, r.calls, r.window_ms FROM unnest(?::varchar[]) AS n(name)
            CROSS JOIN gate_limit_rule r WHERE r.limit_name = ?""";

    /** Keys that follow their template's change in one transaction. */
    static final int FOLLOW_BATCH = 2_000;

    private static final String OPEN_KEYS = """
            SELECT template_name, count(*) FROM gate_limit WHERE template_name IS NOT NULL GROUP BY template_name""";

    /** The template is not keyed (its calls name no key), or is keyed and a call named none. */
    public static final class NotKeyed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public NotKeyed(String message) {
            super(message, null, false, false);
        }
    }

    /** A key the sweep removed: its template and key. */
    public record Removed(String template, String key) {
    }

    private final Tx tx;

    public Keys(Tx tx) {
        this.tx = tx;
    }

    /**
     * The name of the key's limit, opened from its template if new (true in {@code created}); empty when there is no
     * such template.
     *
     * @throws NotKeyed the template takes no keys
     */
    public Optional<Opened> open(LimitKey key) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(HOLD_TEMPLATE)) {
                ps.setString(1, key.template());
                ps.executeQuery().close();
            }
            try (PreparedStatement ps = c.prepareStatement(OPEN)) {
                ps.setString(1, key.template());
                ps.setString(2, key.limitName());
                ps.setString(3, key.key());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return Optional.of(new Opened(rs.getString("name"), rs.getBoolean("created"),
                                rs.getString("parent_name")));
                    }
                }
            }
            Optional<Boolean> keyed = keyed(c, key.template());
            if (keyed.isPresent()) {
                throw new NotKeyed("limit '" + key.template() + "' is not keyed: its calls name no key");
            }
            return Optional.empty();
        });
    }

    /** A key's limit, as opened, and its parent limit (null: none). */
    public record Opened(String limitName, boolean created, String parent) {
    }

    /** Whether the limit is a keyed template; empty when there is no such limit. */
    public Optional<Boolean> keyed(String limit) throws StoreUnavailable {
        return tx.run(c -> keyed(c, limit));
    }

    private static Optional<Boolean> keyed(Connection c, String limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(TEMPLATE)) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(rs.getBoolean("keyed")) : Optional.empty();
            }
        }
    }

    /** What one sweep did: the idle keys it removed, the finished calls of idle keys it deleted first. */
    public record Swept(List<Removed> removed, int history) {
    }

    /**
     * Deletes at most {@code batch} finished calls of idle keys (none opened within {@code grace}), then removes at
     * most {@code batch} idle keys with no call left.
     */
    public Swept sweep(Duration grace, int batch) throws StoreUnavailable {
        int history = tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(KEY_HISTORY)) {
                ps.setInt(1, batch);
                ps.setLong(2, grace.toMillis());
                ps.setInt(3, batch);
                return ps.executeUpdate();
            }
        });
        try {
            return new Swept(tx.run(c -> {
                try (PreparedStatement ps = c.prepareStatement(SWEEP)) {
                    ps.setLong(1, grace.toMillis());
                    ps.setInt(2, batch);
                    List<Removed> removed = new ArrayList<>();
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            removed.add(new Removed(rs.getString(1), rs.getString(2)));
                        }
                    }
                    return removed;
                }
            }), history);
        } catch (IllegalStateException e) {
            // a call joined a key between the sweep's snapshot and its lock: that key is not idle, the next sweep
            // sees it so
            if (e.getCause() instanceof SQLException sql && "23503".equals(sql.getSQLState())) {
                return new Swept(List.of(), history);
            }
            throw e;
        }
    }

    /** Brings every key of {@code template} to its rules as they are now; answers how many keys changed. */
    public int follow(String template) throws StoreUnavailable {
        int total = 0;
        for (int n = -1; n != 0; ) {
            n = tx.run(c -> followBatch(c, template));
            total += n;
        }
        return total;
    }

    private static int followBatch(Connection c, String template) throws SQLException {
        List<String> names = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(FOLLOW)) {
            ps.setString(1, template);
            ps.setInt(2, FOLLOW_BATCH);
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
            ps.setString(2, template);
            ps.executeUpdate();
        }
        return names.size();
    }

    /** How many keys each template has open. */
    public java.util.Map<String, Long> openKeys() throws StoreUnavailable {
        return tx.run(c -> {
            java.util.Map<String, Long> counts = new java.util.HashMap<>();
            try (PreparedStatement ps = c.prepareStatement(OPEN_KEYS); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    counts.put(rs.getString(1), rs.getLong(2));
                }
            }
            return counts;
        });
    }
}
