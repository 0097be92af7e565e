package dev.gate.store;

import dev.gate.rules.LimitKey;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The keys of keyed limits: each key's own limit row (a copy of its template's rules, with its own slot, line and
 * send log), opened by its first call and touched by each. Explicit SQL: an open is one upsert on the hot path. An
 * idle key is removed by {@link IdleKeys}; a template's change reaches its keys by {@link StaleKeys}.
 */
public final class Keys {

    private static final String LIMIT_COLUMNS = """
            calls, window_ms, min_interval_ms, retry_floor_ms, cooldown_ladder_ms, step_down_after, receipt_margin_ms,
            starving_after_ms, aging_after_ms, aging_up_to, fair_programs, burst, adaptive, parent_name, max_waiting,
            max_waiting_per_program, max_cooldown_ms, aligned_zone, aligned_at""";

    // Opens the key's row from its template, or touches it (its last use, written at most once a minute: a busy key
    // does not rewrite its row on each call): the upsert locks the row, waits for a sweep that holds it and, if that
    // removed it, inserts it anew. A new key copies the template's more rules; its slot row comes by trigger. A key
    // touched within the minute comes from the second branch (the upsert returns no row then). A new key only while
    // its template's open keys are under max_keys (their count, kept by trigger: no scan); an open key is always
    // touched. Parameters: template, key name, key, key name, key name.
    private static final String OPEN = """
            WITH t AS (SELECT * FROM gate_limit WHERE name = ? AND keyed),
            k AS (
                INSERT INTO gate_limit (name, template_name, limit_key, key_used_at, """ + LIMIT_COLUMNS + """
            )
                SELECT ?, t.name, ?, clock_timestamp(), """ + LIMIT_COLUMNS + """
             FROM t
                WHERE coalesce((SELECT n.open_keys FROM gate_key_count n WHERE n.template_name = t.name), 0) < t.max_keys
                   OR EXISTS (SELECT 1 FROM gate_limit x WHERE x.name = ?)
                ON CONFLICT (name) DO UPDATE SET key_used_at = excluded.key_used_at
                WHERE gate_limit.key_used_at < excluded.key_used_at - interval '1 minute'
                RETURNING name, template_name, parent_name, (xmax = 0) AS created),
            r AS (
                INSERT INTO gate_limit_rule (limit_name, calls, window_ms, aligned_zone, aligned_at)
                SELECT k.name, r.calls, r.window_ms, r.aligned_zone, r.aligned_at FROM k JOIN gate_limit_rule r ON r.limit_name = k.template_name
                WHERE k.created)
            SELECT name, created, parent_name FROM k
            UNION ALL
            SELECT name, false, parent_name FROM gate_limit
            WHERE name = ? AND EXISTS (SELECT 1 FROM t) AND NOT EXISTS (SELECT 1 FROM k)""";

    private static final String TEMPLATE = "SELECT keyed, template_name FROM gate_limit WHERE name = ?";

    private static final String OPENED = "SELECT parent_name FROM gate_limit WHERE name = ?";

    private static final String KEYS_FULL = """
            SELECT n.open_keys >= t.max_keys FROM gate_limit t JOIN gate_key_count n ON n.template_name = t.name
            WHERE t.name = ?""";

    // An open first holds its template's row (FOR SHARE waits for a change of the template being committed), so the
    // upsert, a statement of its own with a snapshot taken after, copies the template's rules as they are now, and a
    // change that comes after sees the key (StaleKeys' follow).
    private static final String HOLD_TEMPLATE = "SELECT 1 FROM gate_limit WHERE name = ? AND keyed FOR SHARE";

    /** The template is not keyed (its calls name no key), or is keyed and a call named none. */
    public static final class NotKeyed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public NotKeyed(String message) {
            super(message, null, false, false);
        }
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
                ps.setString(4, key.limitName());
                ps.setString(5, key.limitName());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return Optional.of(new Opened(rs.getString("name"), rs.getBoolean("created"),
                                rs.getString("parent_name")));
                    }
                }
            }
            Optional<Boolean> keyed = keyed(c, key.template());
            if (keyed.isEmpty()) {
                return Optional.empty();
            }
            if (!keyed.get()) {
                throw new NotKeyed("limit '" + key.template() + "' is not keyed: its calls name no key");
            }
            // a keyed template, and no row: another caller's first open of the same key inserted it after this
            // statement's snapshot (the upsert waited for it, then left it alone); it is there now. Or the template
            // has no room for one more key.
            try (PreparedStatement ps = c.prepareStatement(OPENED)) {
                ps.setString(1, key.limitName());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return Optional.of(new Opened(key.limitName(), false, rs.getString("parent_name")));
                    }
                }
            }
            try (PreparedStatement ps = c.prepareStatement(KEYS_FULL)) {
                ps.setString(1, key.template());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next() && rs.getBoolean(1)) {
                        throw new KeysFull(key.template());
                    }
                }
            }
            return Optional.empty();
        });
    }

    /** A keyed limit's open keys reach its max_keys: no key opens until idle ones go. */
    public static final class KeysFull extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String template;

        KeysFull(String template) {
            super("limit '" + template + "': its open keys reach maxKeys", null, false, false);
            this.template = template;
        }

        public String template() {
            return template;
        }
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
}
