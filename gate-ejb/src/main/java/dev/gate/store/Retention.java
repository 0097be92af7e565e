package dev.gate.store;


import java.sql.PreparedStatement;
import java.time.Duration;

/**
 * Keeps the tables small: sends older than every window of their limit (plus a margin) and finished calls older
 * than the retention period are deleted, in small batches of their own transactions. Nothing here takes a limit's
 * slot lock, and no send that a window count or the minimum spacing still reads is ever deleted, nor a limit's newest.
 */
public final class Retention {

    /**
     * Kept beyond a limit's longest window or spacing, so a send is never deleted while anything may read it: the
     * window counts, and the status page's chart of the last 10 minutes.
     */
    public static final Duration SEND_MARGIN = Duration.ofMinutes(10);

    // Per limit: its sends older than its longest rule window (or minimum spacing) plus the margin, oldest first, but
    // never its newest send (seq = the slot's send_seq; by its time, so the range stays on the window index): a grant pass's probe that finds
    // the newest send missing reads it as a grant committed after its snapshot and probes again (SlotLock), so a limit
    // idle past its windows keeps one (a try reads it as an empty window).
    // Index ranges on (limit_name, sent_at), and the delete by row address (a TID scan; "id IN" let the planner
    // scan the whole table), so the cost follows the rows deleted, not the table. now() (the transaction's start, a
    // stable value) rather than clock_timestamp(), so the bound is part of the index range.
    // An aligned rule's block may be longer than its window by a clock change (a 25-hour day): its sends are kept an
    // hour longer.
    static final String ALIGNED_EXTRA = "CASE WHEN %1$s.aligned_zone IS NULL THEN 0 ELSE 3600000 END";

    static final String PRUNE_SENDS = """
            DELETE FROM gate_send WHERE ctid = ANY (ARRAY(
                SELECT old.ctid
                FROM gate_limit l
                JOIN gate_slot k ON k.limit_name = l.name
                CROSS JOIN LATERAL (
                    SELECT s.ctid FROM gate_send s
                    WHERE s.limit_name = l.name
                      AND s.sent_at < least(now() - (GREATEST(l.window_ms + """ + ALIGNED_EXTRA.formatted("l") + """
            , l.min_interval_ms,
                              (SELECT coalesce(max(r.window_ms + """ + ALIGNED_EXTRA.formatted("r") + """
            ), 0) FROM gate_limit_rule r WHERE r.limit_name = l.name))
                          + ?) * interval '1 millisecond',
                          (SELECT n.sent_at FROM gate_send n WHERE n.limit_name = l.name AND n.seq = k.send_seq))
                    ORDER BY s.sent_at
                    LIMIT ?) old
                LIMIT ?))""";

    // Finished calls (their joiners go with them, by cascade) older than the retention period, oldest first. A row
    // changed meanwhile (a late outcome) has a new address and is simply not deleted this time.
    static final String PRUNE_CALLS = """
            DELETE FROM gate_call WHERE ctid = ANY (ARRAY(
                SELECT old.ctid
                FROM gate_limit l
                CROSS JOIN LATERAL (
                    SELECT c.ctid FROM gate_call c
                    WHERE c.limit_name = l.name AND c.state NOT IN ('WAITING', 'GRANTED')
                      AND c.done_at < now() - ? * interval '1 millisecond'
                    ORDER BY c.done_at
                    LIMIT ?) old
                LIMIT ?))""";

    // Sends a removal kept aside for a limit declared again (LimitRemovals) that have left its windows, oldest first.
    static final String PRUNE_REMOVED_SENDS = """
            DELETE FROM gate_removed_send WHERE ctid = ANY (ARRAY(
                SELECT ctid FROM gate_removed_send WHERE keep_until < now() ORDER BY keep_until LIMIT ?))""";

    /** How long the record of a vendor's cool-down (who reported it) is kept on /actions; operators' own stay. */
    public static final Duration COOL_DOWN_RECORDS = Duration.ofDays(30);

    // Records of cool-downs (one per rate-limit signal, so as many as a vendor's 429s) older than the above; the
    // operators' own actions are few and kept.
    static final String PRUNE_COOL_DOWNS = """
            DELETE FROM gate_action WHERE ctid = ANY (ARRAY(
                SELECT ctid FROM gate_action
                WHERE action = 'cool-down' AND at < now() - ? * interval '1 millisecond'
                ORDER BY at
                LIMIT ?))""";

    private final Tx tx;

    public Retention(Tx tx) {
        this.tx = tx;
    }

    /** Deletes at most {@code batch} sends that no window can count any more; answers how many. */
    public int pruneSends(int batch) throws StoreUnavailable {
        return prune(PRUNE_SENDS, SEND_MARGIN, batch);
    }

    /** Deletes at most {@code batch} calls that finished more than {@code age} ago; answers how many. */
    public int pruneCalls(Duration age, int batch) throws StoreUnavailable {
        return prune(PRUNE_CALLS, age, batch);
    }

    /** Deletes at most {@code batch} records of cool-downs older than {@link #COOL_DOWN_RECORDS}; answers how many. */
    public int pruneCoolDowns(int batch) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(PRUNE_COOL_DOWNS)) {
                ps.setLong(1, COOL_DOWN_RECORDS.toMillis());
                ps.setInt(2, batch);
                return ps.executeUpdate();
            }
        });
    }

    /** Deletes at most {@code batch} sends kept aside by a removal that no window counts any more; how many. */
    public int pruneRemovedSends(int batch) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(PRUNE_REMOVED_SENDS)) {
                ps.setInt(1, batch);
                return ps.executeUpdate();
            }
        });
    }

    /** One batch: the query's age bound, then its per-limit and overall batch sizes. */
    private int prune(String sql, Duration age, int batch) throws StoreUnavailable {
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setLong(1, age.toMillis());
                ps.setInt(2, batch);
                ps.setInt(3, batch);
                return ps.executeUpdate();
            }
        });
    }
}
