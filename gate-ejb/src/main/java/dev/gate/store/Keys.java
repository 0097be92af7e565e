package dev.gate.store;

import dev.gate.rules.LimitKey;

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
            starving_after_ms, aging_after_ms, aging_up_to, fair_programs, burst, adaptive, parent_name, max_waiting,
            max_waiting_per_program, max_cooldown_ms""";

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
                INSERT INTO gate_limit_rule (limit_name, calls, window_ms)
                SELECT k.name, r.calls, r.window_ms FROM k JOIN gate_limit_rule r ON r.limit_name = k.template_name
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
    // change that comes after sees the key (LimitTable's follow).
    private static final String HOLD_TEMPLATE = "SELECT 1 FROM gate_limit WHERE name = ? AND keyed FOR SHARE";

    // The sweep walks the keys from the longest unused (the key_use index), a batch at a time, each locked (SKIP
    // LOCKED: one being opened or joined right now waits for the next sweep). A key found in use after all (a call of
    // it waiting or granted, a send of it inside its longest window, a cool-down running: each an index lookup per
    // key) is marked used now and the walk goes past it; the others are idle. now() (the sweep's transaction's start): a stable index bound.
    // Parameters: grace, batch.
    static final String IDLE = """
            WITH cand AS (
                SELECT k.name, k.window_ms, k.min_interval_ms, k.receipt_margin_ms FROM gate_limit k
                WHERE k.template_name IS NOT NULL AND k.key_used_at < now() - ? * interval '1 millisecond'
                ORDER BY k.key_used_at
                LIMIT ?
                FOR UPDATE OF k SKIP LOCKED),
            busy AS (
                SELECT cand.name FROM cand
                CROSS JOIN LATERAL (
                    (SELECT 1 FROM gate_call c WHERE c.limit_name = cand.name AND c.state = 'WAITING' LIMIT 1)
                    UNION ALL
                    (SELECT 1 FROM gate_call c WHERE c.limit_name = cand.name AND c.state = 'GRANTED' LIMIT 1)
                    UNION ALL
                    (SELECT 1 FROM gate_slot s WHERE s.limit_name = cand.name AND s.paused_until > now())
                    UNION ALL
                    (SELECT 1 FROM gate_send g
                     WHERE g.limit_name = cand.name
                       AND g.sent_at > now() - (GREATEST(cand.window_ms, cand.min_interval_ms,
                           (SELECT coalesce(max(r.window_ms), 0) FROM gate_limit_rule r WHERE r.limit_name = cand.name))
                           + coalesce(cand.receipt_margin_ms, 1000)) * interval '1 millisecond'
                     ORDER BY g.sent_at DESC
                     LIMIT 1)
                    LIMIT 1) b),
            touched AS (UPDATE gate_limit k SET key_used_at = now() FROM busy WHERE k.name = busy.name)
            SELECT name, name IN (SELECT name FROM busy) AS busy FROM cand""";

    // An idle key's finished calls go first (they answered retries and outcome reads for the grace time), by index
    // and row address, as retention deletes. Parameters: keys, per key, batch.
    static final String KEY_HISTORY = """
            DELETE FROM gate_call WHERE ctid = ANY (ARRAY(
                SELECT f.ctid FROM unnest(?::varchar[]) AS n(name)
                CROSS JOIN LATERAL (
                    SELECT c.ctid FROM gate_call c
                    WHERE c.limit_name = n.name AND c.state NOT IN ('WAITING', 'GRANTED')
                    ORDER BY c.done_at
                    LIMIT ?) f
                LIMIT ?))""";

    // Then an idle key with no call left goes; its slot, rules and send log by cascade. Parameters: keys.
    static final String REMOVE = """
            DELETE FROM gate_limit l
            WHERE l.name = ANY (?::varchar[]) AND NOT EXISTS (SELECT 1 FROM gate_call c WHERE c.limit_name = l.name)
            RETURNING l.template_name, l.limit_key""";

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
            INSERT INTO gate_limit_rule (limit_name, calls, window_ms)
            SELECT k.name, r.calls, r.window_ms FROM gate_limit k
            JOIN gate_limit_rule r ON r.limit_name = k.template_name
            WHERE k.name = ANY (?)""";

    /** Keys that follow their template's change in one transaction. */
    public static final int FOLLOW_BATCH = 2_000;


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

    /**
     * What one sweep step did: the idle keys it removed, the finished calls of idle keys it deleted first, and how
     * many keys it looked at (as many as its batch: more may be waiting to be looked at).
     */
    public record Swept(List<Removed> removed, int history, int looked) {
    }

    /**
     * One step of the sweep, in one transaction: the {@code batch} keys longest unused (none opened within
     * {@code grace}); of those idle, at most {@code batch} finished calls deleted, then each with no call left removed.
     */
    public Swept sweep(Duration grace, int batch) throws StoreUnavailable {
        return tx.run(c -> {
            List<String> idle = new ArrayList<>();
            int looked = 0;
            try (PreparedStatement ps = c.prepareStatement(IDLE)) {
                ps.setLong(1, grace.toMillis());
                ps.setInt(2, batch);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        looked++;
                        if (!rs.getBoolean("busy")) {
                            idle.add(rs.getString("name"));
                        }
                    }
                }
            }
            if (idle.isEmpty()) {
                return new Swept(List.of(), 0, looked);
            }
            java.sql.Array names = c.createArrayOf("varchar", idle.toArray());
            int history;
            try (PreparedStatement ps = c.prepareStatement(KEY_HISTORY)) {
                ps.setArray(1, names);
                ps.setInt(2, batch);
                ps.setInt(3, batch);
                history = ps.executeUpdate();
            }
            List<Removed> removed = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(REMOVE)) {
                ps.setArray(1, names);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        removed.add(new Removed(rs.getString(1), rs.getString(2)));
                    }
                }
            }
            return new Swept(removed, history, looked);
        });
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
