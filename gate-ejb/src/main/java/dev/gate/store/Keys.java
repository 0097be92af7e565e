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

    // A key is idle when no call of it waits or is granted, no send of it is inside its longest window (a key made
    // anew would forget them and let a burst through), no cool-down runs, and nobody opened it for the grace time
    // (a join follows its open). Its finished calls go with it; its slot, rules and send log by cascade. SKIP LOCKED:
    // a key being opened or joined right now is kept for the next sweep.
    private static final String SWEEP = """
            WITH idle AS (
                SELECT k.name FROM gate_limit k JOIN gate_slot s ON s.limit_name = k.name
                WHERE k.template_name IS NOT NULL
                  AND k.key_used_at < clock_timestamp() - ? * interval '1 millisecond'
                  AND (s.paused_until IS NULL OR s.paused_until < clock_timestamp())
                  AND NOT EXISTS (SELECT 1 FROM gate_call c
                                  WHERE c.limit_name = k.name AND c.state IN ('WAITING', 'GRANTED'))
                  AND NOT EXISTS (SELECT 1 FROM gate_send g
                                  WHERE g.limit_name = k.name
                                    AND g.sent_at > clock_timestamp() - (GREATEST(k.window_ms, k.min_interval_ms,
                                        (SELECT coalesce(max(r.window_ms), 0) FROM gate_limit_rule r
                                         WHERE r.limit_name = k.name)) + coalesce(k.receipt_margin_ms, 1000))
                                        * interval '1 millisecond')
                LIMIT ?
                FOR UPDATE OF k, s SKIP LOCKED),
            calls AS (DELETE FROM gate_call c USING idle WHERE c.limit_name = idle.name)
            DELETE FROM gate_limit l USING idle WHERE l.name = idle.name
            RETURNING l.template_name, l.limit_key""";

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

    /** Removes at most {@code batch} idle keys, none opened within {@code grace}; answers which. */
    public List<Removed> sweep(Duration grace, int batch) throws StoreUnavailable {
        try {
            return tx.run(c -> {
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
            });
        } catch (IllegalStateException e) {
            // a call joined a key between the sweep's snapshot and its lock: that key is not idle, the next sweep
            // sees it so
            if (e.getCause() instanceof SQLException sql && "23503".equals(sql.getSQLState())) {
                return List.of();
            }
            throw e;
        }
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
