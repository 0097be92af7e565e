package dev.gate.store;

import dev.gate.rules.CoolDownLadder;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * How the vendor answered a granted call, in one transaction: the call becomes DONE with its outcome, and the
 * limit's cool-down moves ({@link CoolDowns}): a rate-limit signal pauses the whole limit, climbs the ladder and cuts
 * an adaptive rate ({@link AdaptiveCuts}); a success counts toward stepping it down. The common case (a success on a
 * limit not cooling down) is one statement.
 */
public final class Outcomes {

    // A late outcome of an ABANDONED call (its lease ran out first) still counts: a 429 must not lose its cool-down.
    // Those who wait for this outcome (joiners) hear of it at commit, on any instance. An outcome that moves no
    // cool-down and frees no concurrency key commits without waiting for the disk (synchronous_commit off for this
    // transaction only): PostgreSQL flushes it within a few hundred ms, and if it crashes first the call ends
    // ABANDONED at its lease instead of DONE; no grant, send, cool-down or freed key is ever committed that way.
    private static final String DONE = """
            WITH done AS (
                UPDATE gate_call SET state = 'DONE', done_at = clock_timestamp(), outcome_status = ?,
                                     outcome_retry_after_s = ?
                WHERE id = ? AND state IN ('GRANTED', 'ABANDONED')
                  AND (?::varchar IS NULL OR owner = ?) AND (?::varchar IS NULL OR program = ?)
                RETURNING id)
            SELECT pg_notify('%s', id::text), clock_timestamp() AS now,
                   CASE WHEN ? THEN set_config('synchronous_commit', 'off', true) END
            FROM done""".formatted(Granter.CHANNEL);

    // The common outcome in one statement (one round trip, committed as it answers): not a rate-limit signal, on a
    // limit whose cool-down is at step 0 and that has no parent, for a call that holds no concurrency key. It moves
    // nothing on the slot row and frees no key, so it commits without waiting for the disk (see DONE). Only a call
    // that dedupe joiners share is announced (they wait for its outcome); nobody else can be waiting on it. No row: not
    // the common case (or not granted): the whole transaction below decides.
    private static final String PLAIN_DONE = """
            WITH plain AS (
                SELECT c.id, EXISTS (SELECT 1 FROM gate_call_joiner j WHERE j.call_id = c.id) AS shared
                FROM gate_call c JOIN gate_slot s ON s.limit_name = c.limit_name
                     JOIN gate_limit l ON l.name = c.limit_name
                WHERE c.id = ? AND c.state IN ('GRANTED', 'ABANDONED')
                  AND (?::varchar IS NULL OR c.owner = ?) AND (?::varchar IS NULL OR c.program = ?)
                  AND s.cooldown_step = 0 AND l.parent_name IS NULL
                  AND (c.concurrency_key IS NULL OR c.state = 'ABANDONED')
                FOR UPDATE OF c),
            done AS (
                UPDATE gate_call c SET state = 'DONE', done_at = clock_timestamp(), outcome_status = ?,
                                       outcome_retry_after_s = ?
                FROM plain WHERE c.id = plain.id
                RETURNING c.id, plain.shared)
            SELECT CASE WHEN done.shared THEN pg_notify('%s', done.id::text) END,
                   set_config('synchronous_commit', 'off', true)
            FROM done""".formatted(Granter.CHANNEL);

    // Common outcomes that met (GroupRecording): PLAIN_DONE for each in one statement, committed as it answers and
    // without waiting for the disk, as one alone. The calls are locked in id order, so two groups that share calls
    // (an outcome reported twice at once, on two instances) never wait on each other in a cycle. A call it does not
    // answer is not the common case, or not granted: its own transaction decides it (recordInFull). Parameters: the
    // calls (each once), their owners, programs, statuses and Retry-After seconds, one element each.
    private static final String PLAIN_DONE_TOGETHER = """
            WITH r AS (SELECT * FROM unnest(?::bigint[], ?::varchar[], ?::varchar[], ?::int[], ?::int[])
                                 AS r (id, owner, program, status, retry_after_s)),
            plain AS (
                SELECT c.id, r.status, r.retry_after_s,
                       EXISTS (SELECT 1 FROM gate_call_joiner j WHERE j.call_id = c.id) AS shared
                FROM r JOIN gate_call c ON c.id = r.id JOIN gate_slot s ON s.limit_name = c.limit_name
                     JOIN gate_limit l ON l.name = c.limit_name
                WHERE c.state IN ('GRANTED', 'ABANDONED')
                  AND (r.owner IS NULL OR c.owner = r.owner) AND (r.program IS NULL OR c.program = r.program)
                  AND s.cooldown_step = 0 AND l.parent_name IS NULL
                  AND (c.concurrency_key IS NULL OR c.state = 'ABANDONED')
                ORDER BY c.id
                FOR UPDATE OF c),
            done AS (
                UPDATE gate_call c SET state = 'DONE', done_at = clock_timestamp(), outcome_status = plain.status,
                                       outcome_retry_after_s = plain.retry_after_s
                FROM plain WHERE c.id = plain.id
                RETURNING c.id, plain.shared)
            SELECT done.id, CASE WHEN done.shared THEN pg_notify('%s', done.id::text) END,
                   set_config('synchronous_commit', 'off', true)
            FROM done""".formatted(Granter.CHANNEL);

    // The vendor's own count, as the outcome reported it: taken as of the call's last unit in the send log (found by
    // its grant time on the window index), when it is a count this limit can have (0 to its largest rule's calls), and
    // held at most the limit's longest window; a report of an older send than the one recorded (its outcome came
    // late) does not replace it while that one's reset is ahead. Updating the slot row takes its lock before the call's
    // (the grant pass's order). The count is of the call's limit, or of the limit named (a key's parent, whose send
    // log holds the key's grant too). Parameters: call, remaining, reset seconds, quota, the limit counted (null: the
    // call's).
    /**
     * The vendor's count, kept on the limit's slot unless an earlier unit's report came later; a count the gate's own
     * sends explain ({@link dev.gate.rules.VendorCount#explained}: one index lookup of the send log per rule it could
     * be of, in the rule's window as the gate counts it, its receipt margin included) is kept as already reset: it
     * holds nothing.
     */
    private static final String VENDOR_COUNT = """
            WITH p AS (SELECT ?::bigint AS call_id, ?::int AS remaining, ?::bigint AS reset_s, ?::int AS quota,
                              ?::varchar AS counted),
            c AS (SELECT g.id, coalesce(p.counted, g.limit_name) AS limit_name, g.granted_at, g.program
                  FROM gate_call g, p WHERE g.id = p.call_id),
            l AS (
                SELECT l.name, l.max_cooldown_ms,
                       greatest(l.calls, coalesce((SELECT max(r.calls) FROM gate_limit_rule r WHERE r.limit_name = l.name),
                                                  0)) AS most,
                       greatest(l.window_ms, coalesce((SELECT max(r.window_ms) FROM gate_limit_rule r
                                                       WHERE r.limit_name = l.name), 0)) AS longest
                FROM gate_limit l JOIN c ON l.name = c.limit_name),
            u AS (SELECT max(g.seq) AS unit FROM gate_send g JOIN c ON g.limit_name = c.limit_name
                                                                     AND g.sent_at = c.granted_at AND g.call_id = c.id),
            rules AS (
                SELECT l.calls, l.window_ms, l.aligned_zone, l.aligned_at,
                       coalesce(l.receipt_margin_ms::numeric, least(l.window_ms / 200.0, 100)) AS margin_ms
                FROM gate_limit l JOIN c ON l.name = c.limit_name
                UNION ALL
                SELECT r.calls, r.window_ms, r.aligned_zone, r.aligned_at,
                       coalesce(l.receipt_margin_ms::numeric, least(r.window_ms / 200.0, 100))
                FROM gate_limit_rule r JOIN c ON r.limit_name = c.limit_name JOIN gate_limit l ON l.name = r.limit_name),
            could AS (SELECT rules.* FROM rules, p
                      WHERE rules.calls >= p.remaining AND (p.quota IS NULL OR rules.calls = p.quota)),
            explained AS (
                SELECT EXISTS (SELECT 1 FROM could) AND NOT EXISTS (
                    SELECT 1 FROM could, p, u, c
                    WHERE could.calls - p.remaining > 0
                      AND NOT EXISTS (
                          SELECT 1 FROM gate_send g
                          WHERE g.limit_name = c.limit_name AND g.seq = u.unit - (could.calls - p.remaining) + 1
                            AND g.sent_at >= CASE WHEN could.aligned_zone IS NULL
                                                 THEN clock_timestamp() - could.window_ms * interval '1 millisecond'
                                                 ELSE gate_block_start(clock_timestamp(), could.aligned_zone,
                                                                       could.aligned_at, could.window_ms) END
                                             - could.margin_ms * interval '1 millisecond')) AS yes),
            own_leave AS (
                SELECT max(CASE WHEN could.aligned_zone IS NULL
                                THEN g.sent_at + (could.window_ms + could.margin_ms) * interval '1 millisecond'
                                ELSE gate_block_end(g.sent_at + could.margin_ms * interval '1 millisecond',
                                                    could.aligned_zone, could.aligned_at, could.window_ms) END) AS at
                FROM could, u, c, gate_send g
                WHERE g.limit_name = c.limit_name AND g.seq = u.unit - could.calls + 1),
            ok AS (SELECT l.name, u.unit, least(l.longest, l.max_cooldown_ms) AS cap FROM l, u, p
                   WHERE u.unit IS NOT NULL AND p.remaining BETWEEN 0 AND l.most),
            was AS (SELECT s.vendor_reset_at > clock_timestamp() AS holding FROM gate_slot s, l WHERE s.limit_name = l.name),
            moved AS (
                UPDATE gate_slot s SET vendor_after_unit = ok.unit, vendor_remaining = p.remaining,
                                       vendor_reset_at = CASE
                                           WHEN (SELECT yes FROM explained) AND p.remaining > 0 THEN clock_timestamp()
                                           WHEN (SELECT yes FROM explained) THEN least(clock_timestamp()
                                                + least(p.reset_s * 1000, ok.cap) * interval '1 millisecond',
                                                greatest(clock_timestamp(), (SELECT at FROM own_leave)))
                                           ELSE clock_timestamp()
                                                + least(p.reset_s * 1000, ok.cap) * interval '1 millisecond' END,
                                       vendor_reported_at = clock_timestamp(),
                                       vendor_program = (SELECT program FROM c), vendor_call = p.call_id
                FROM ok, p WHERE s.limit_name = ok.name
                  AND (s.vendor_after_unit IS NULL OR s.vendor_after_unit <= ok.unit
                       OR s.vendor_reset_at <= clock_timestamp())
                RETURNING s.limit_name, s.vendor_reset_at)
            SELECT (SELECT name FROM l) AS name, (SELECT most FROM l) AS most, (SELECT unit FROM u) AS unit,
                   EXISTS (SELECT 1 FROM moved) AS moved, (SELECT yes FROM explained) AS explained,
                   (SELECT vendor_reset_at FROM moved) AS held_until,
                   coalesce((SELECT holding FROM was), false) AS was_holding""";


    /**
     * The vendor's own count as an outcome reported it: units left, seconds until its count resets, and the quota it
     * is of (null: not said).
     */
    public record VendorReport(int remaining, long resetSeconds, Integer quota) {
    }

    /**
     * What became of a vendor's count: taken (holding, or explained by the gate's own sends and so holding nothing),
     * or why not (the figures for the operators' log).
     */
    public record VendorTaken(boolean taken, boolean explained, boolean outOfRange, String limit, int most,
                              Instant heldUntil, boolean newHold) {
    }

    /** What recording did. */
    public enum Result {
        /** Done; nothing the slot loop must look at sooner than it would anyway. */
        RECORDED,
        /** Done, and its concurrency key is free: a call waiting on that key may go now. */
        RECORDED_KEY_FREED,
        /**
         * The same outcome was recorded before (its first report's answer was lost, and it was sent again): nothing
         * changes, and the caller is told it is recorded.
         */
        REPEATED,
        NOT_GRANTED
    }

    // A call already DONE with this very outcome: the report was sent again.
    private static final String SAME_OUTCOME = """
            SELECT 1 FROM gate_call
            WHERE id = ? AND state = 'DONE' AND (?::varchar IS NULL OR owner = ?) AND (?::varchar IS NULL OR program = ?)
              AND outcome_status = ?
              AND outcome_retry_after_s IS NOT DISTINCT FROM ?""";

    private final Tx tx;

    public Outcomes(Tx tx) {
        this.tx = tx;
    }

    /**
     * Whose call an outcome may be for: its owner (a program over HTTP; the instance for its EJB callers) and its
     * program; null for either is any. The statements take it as four parameters, each value twice.
     */
    public record Whose(String owner, String program) {

        int bind(PreparedStatement ps, int from) throws SQLException {
            ps.setString(from, owner);
            ps.setString(from + 1, owner);
            ps.setString(from + 2, program);
            ps.setString(from + 3, program);
            return from + 4;
        }
    }

    /**
     * @param owner only a call that is this owner's and this program's (a program may report only its own calls)
     */
    public Result record(long callId, Whose owner, int status, Integer retryAfterSeconds)
            throws StoreUnavailable {
        return record(callId, owner, status, retryAfterSeconds, null, v -> { });
    }

    /**
     * As above, with the vendor's own count ({@code report}, null: none), taken as {@code taken} hears (inside the
     * transaction, before it commits).
     */
    public Result record(long callId, Whose owner, int status, Integer retryAfterSeconds, VendorReport report,
                         java.util.function.Consumer<VendorTaken> taken) throws StoreUnavailable {
        if (mayBePlain(status, retryAfterSeconds, report)
                && tx.runAlone(c -> matches(c, PLAIN_DONE, callId, owner, status, retryAfterSeconds))) {
            return Result.RECORDED;
        }
        return recordInFull(callId, owner, status, retryAfterSeconds, report, taken);
    }

    /** A common outcome of a call, as a group of them is recorded ({@link #recordPlain}). */
    public record Plain(long callId, Whose whose, int status, Integer retryAfterSeconds) {
    }

    /**
     * Whether an outcome may be the common case (one statement, {@link #recordPlain}): no vendor count, not a rate-limit
     * signal. Whether it is depends on its call and limit, which the statement reads.
     */
    public static boolean mayBePlain(int status, Integer retryAfterSeconds, VendorReport report) {
        return report == null && !CoolDownLadder.isRateLimitSignal(status, retryAfterSeconds);
    }

    /**
     * Common outcomes in one statement and one commit (one alone by the statement for one); for each, whether it was
     * recorded. One that was not (not the common case, not granted, or its call reported twice here) is for
     * {@link #recordInFull}, which tells it apart.
     */
    public boolean[] recordPlain(List<Plain> outcomes) throws StoreUnavailable {
        if (outcomes.size() == 1) {
            Plain p = outcomes.get(0);
            return new boolean[] {tx.runAlone(c -> matches(c, PLAIN_DONE, p.callId(), p.whose(), p.status(),
                    p.retryAfterSeconds()))};
        }
        // a call reported twice in the group: its first report goes in the statement, the other is told by
        // recordInFull what the database then holds (the same outcome: sent again; another: not granted)
        java.util.Map<Long, Plain> once = new java.util.LinkedHashMap<>();
        outcomes.forEach(p -> once.putIfAbsent(p.callId(), p));
        List<Plain> sent = List.copyOf(once.values());
        java.util.Set<Long> done = tx.runAlone(c -> {
            try (PreparedStatement ps = c.prepareStatement(PLAIN_DONE_TOGETHER)) {
                ps.setArray(1, c.createArrayOf("int8", sent.stream().map(Plain::callId).toArray()));
                ps.setArray(2, c.createArrayOf("varchar", sent.stream().map(p -> p.whose().owner()).toArray()));
                ps.setArray(3, c.createArrayOf("varchar", sent.stream().map(p -> p.whose().program()).toArray()));
                ps.setArray(4, c.createArrayOf("int4", sent.stream().map(Plain::status).toArray()));
                ps.setArray(5, c.createArrayOf("int4", sent.stream().map(Plain::retryAfterSeconds).toArray()));
                java.util.Set<Long> ids = new java.util.HashSet<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                    }
                }
                return ids;
            }
        });
        boolean[] recorded = new boolean[outcomes.size()];
        for (int i = 0; i < recorded.length; i++) {
            Plain p = outcomes.get(i);
            recorded[i] = once.get(p.callId()) == p && done.contains(p.callId()); // this very report went
        }
        return recorded;
    }

    /** As {@link #record}, in a transaction of its own whatever the outcome: every case but the common one. */
    public Result recordInFull(long callId, Whose owner, int status, Integer retryAfterSeconds, VendorReport report,
                               java.util.function.Consumer<VendorTaken> taken) throws StoreUnavailable {
        return tx.run(c -> {
            Optional<CoolDowns.Seen> seen = CoolDowns.ofCall(c, callId, owner);
            if (seen.isEmpty()) {
                return repeated(c, callId, owner, status, retryAfterSeconds) ? Result.REPEATED : Result.NOT_GRANTED;
            }
            String limit = seen.get().limit();
            boolean signal = CoolDownLadder.isRateLimitSignal(status, retryAfterSeconds);
            CoolDowns.Seen locked = signal || seen.get().next(signal, retryAfterSeconds) != null
                    ? CoolDowns.locked(c, limit).orElseThrow() : null;
            // a key under a parent: the vendor's "slow down" pauses the parent (the whole source) as well, on the
            // parent's own ladder, and the key's successes step that ladder down as the parent's own calls do
            String parent = seen.get().parent();
            CoolDowns.Seen parentSeen = parent == null ? null : CoolDowns.ofParent(c, parent).orElse(null);
            CoolDowns.Seen parentLocked = parentSeen != null
                    && (signal || parentSeen.next(signal, retryAfterSeconds) != null)
                    ? CoolDowns.locked(c, parent).orElseThrow() : null;
            if (report != null) {
                // a count of the parent's account reported on one key's call holds the parent, and with it every key
                VendorTaken count = vendorCount(c, callId, report,
                        parent != null && countsTheParent(c, limit, parent, report) ? parent : null);
                if (count.newHold()) { // who held every program's line, on record beside the operators' actions
                    ActionLog.record(c, new ActionLog.Entry(seen.get().program() == null ? "unknown"
                            : seen.get().program(), "vendor-count", "limit " + count.limit(), "call " + callId
                            + " reported " + report.remaining() + " left, reset in " + report.resetSeconds()
                            + " s: the limit holds to it until " + count.heldUntil()));
                }
                taken.accept(count);
            }
            // a freed concurrency key commits durably: the next call of the key must not be granted on a
            // record a crash could lose, and its grant then reads after this outcome's time, not before
            Instant doneAt = done(c, callId, owner, status, retryAfterSeconds,
                    locked == null && parentLocked == null && !seen.get().freesKey() && report == null);
            if (doneAt == null) {
                throw new SQLException("call " + callId + " left GRANTED while its outcome was recorded", "40001");
            }
            CoolDowns.Signal by = new CoolDowns.Signal(callId, seen.get().program(), status, retryAfterSeconds);
            if (locked != null) {
                CoolDowns.coolDown(c, limit, locked, doneAt, by, signal);
            }
            if (parentLocked != null) {
                CoolDowns.coolDown(c, parent, parentLocked, doneAt, by, signal);
            }
            return seen.get().freesKey() ? Result.RECORDED_KEY_FREED : Result.RECORDED;
        });
    }

    // The calls of each rule of a key and of its parent (each limit's own, then its more rules), in one trip.
    // Parameters: key, key, parent, parent.
    private static final String RULE_CALLS = """
            SELECT ARRAY(SELECT l.calls FROM gate_limit l WHERE l.name = ?
                         UNION ALL SELECT r.calls FROM gate_limit_rule r WHERE r.limit_name = ?) AS key_calls,
                   ARRAY(SELECT l.calls FROM gate_limit l WHERE l.name = ?
                         UNION ALL SELECT r.calls FROM gate_limit_rule r WHERE r.limit_name = ?) AS parent_calls""";

    /** Whether a count reported on a call of the key {@code limit} is of its {@code parent}'s rules (VendorCount). */
    private static boolean countsTheParent(Connection c, String limit, String parent, VendorReport report)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(RULE_CALLS)) {
            ps.setString(1, limit);
            ps.setString(2, limit);
            ps.setString(3, parent);
            ps.setString(4, parent);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return dev.gate.rules.VendorCount.ofParent(report.remaining(), report.quota(), calls(rs, "key_calls"),
                        calls(rs, "parent_calls"));
            }
        }
    }

    private static List<Integer> calls(ResultSet rs, String column) throws SQLException {
        List<Integer> calls = new java.util.ArrayList<>();
        for (Object n : (Object[]) rs.getArray(column).getArray()) {
            calls.add(((Number) n).intValue());
        }
        return calls;
    }

    // package-private: VendorCountDecisionTest holds the statement to the Java rule
    static VendorTaken vendorCount(Connection c, long callId, VendorReport report) throws SQLException {
        return vendorCount(c, callId, report, null);
    }

    /** As above, the count taken as {@code counted}'s (a key's parent; null: the call's own limit). */
    static VendorTaken vendorCount(Connection c, long callId, VendorReport report, String counted)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(VENDOR_COUNT)) {
            ps.setLong(1, callId);
            ps.setInt(2, report.remaining());
            ps.setLong(3, report.resetSeconds());
            if (report.quota() == null) {
                ps.setNull(4, java.sql.Types.INTEGER);
            } else {
                ps.setInt(4, report.quota());
            }
            ps.setString(5, counted);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                int most = rs.getInt("most");
                boolean outOfRange = rs.getObject("unit") != null
                        && (report.remaining() < 0 || report.remaining() > most);
                boolean taken = rs.getBoolean("moved");
                boolean holds = taken && !rs.getBoolean("explained"); // not the gate's own full window
                return new VendorTaken(taken, rs.getBoolean("explained"), outOfRange, rs.getString("name"), most,
                        holds ? Times.get(rs, "held_until") : null, holds && !rs.getBoolean("was_holding"));
            }
        }
    }

    /** The call becomes DONE; answers the database time of that, or null when it was not granted (any more). */
    private static Instant done(Connection c, long callId, Whose owner, int status, Integer retryAfterSeconds,
                                boolean movesNothing) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(DONE)) {
            ps.setInt(1, status);
            if (retryAfterSeconds == null) {
                ps.setNull(2, java.sql.Types.INTEGER);
            } else {
                ps.setInt(2, retryAfterSeconds);
            }
            ps.setLong(3, callId);
            ps.setBoolean(owner.bind(ps, 4), movesNothing);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Times.get(rs, "now") : null;
            }
        }
    }

    private static boolean repeated(Connection c, long callId, Whose owner, int status, Integer retryAfterSeconds)
            throws SQLException {
        return matches(c, SAME_OUTCOME, callId, owner, status, retryAfterSeconds);
    }

    /** Runs an outcome's statement (parameters: call, whose, status, Retry-After); whether it found a row. */
    private static boolean matches(Connection c, String sql, long callId, Whose owner, int status,
                                   Integer retryAfterSeconds) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, callId);
            int next = owner.bind(ps, 2);
            ps.setInt(next, status);
            if (retryAfterSeconds == null) {
                ps.setNull(next + 1, java.sql.Types.INTEGER);
            } else {
                ps.setInt(next + 1, retryAfterSeconds);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }
}
