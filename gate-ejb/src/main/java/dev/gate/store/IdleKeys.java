package dev.gate.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The idle keys of keyed limits: the sweep that finds keys nobody used within a grace time, deletes their finished
 * calls and then removes each with no call left (its slot, rules and send log by cascade). Explicit SQL: it locks and
 * deletes in batches, each a transaction of its own.
 */
public final class IdleKeys {

    // The sweep walks the keys from the longest unused (the key_use index), a batch at a time, each locked (SKIP
    // LOCKED: one being opened or joined right now waits for the next sweep). A key found in use after all (a call of
    // it waiting or granted, a send of it inside its longest window, a cool-down running: each an index lookup per
    // key) is marked used now and the walk goes past it; the others are idle. now() (the sweep's transaction's start): a stable index bound.
    // Parameters: grace, batch.
    static final String IDLE = """
            WITH cand AS (
                SELECT k.name, k.window_ms, k.min_interval_ms, k.receipt_margin_ms, k.aligned_zone FROM gate_limit k
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
                       AND g.sent_at > now() - (GREATEST(cand.window_ms + """ + Retention.ALIGNED_EXTRA.formatted("cand") + """
            , cand.min_interval_ms,
                           (SELECT coalesce(max(r.window_ms + """ + Retention.ALIGNED_EXTRA.formatted("r") + """
            ), 0) FROM gate_limit_rule r WHERE r.limit_name = cand.name))
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

    /** A key the sweep removed: its template and key. */
    public record Removed(String template, String key) {
    }

    private final Tx tx;

    public IdleKeys(Tx tx) {
        this.tx = tx;
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
}
