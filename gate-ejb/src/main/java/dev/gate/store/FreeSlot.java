package dev.gate.store;

import dev.gate.domain.Grant;

import dev.gate.api.CallClass;
import dev.gate.rules.Cost;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Try now: takes a limit's slot for a new call if one is free at this moment, else says when to try again, leaving
 * nothing in the line. One round trip: it locks the limit's slot row, then decides as the grant pass does, and if the
 * slot is free writes the call as GRANTED (a consume: DONE, or with no key of the caller's no call row at all, its sends
 * its record), its send and the moved beat; tries of one limit that meet are decided together
 * ({@link #takeTogether}). A key under a parent takes the parent's slot too, in one transaction around those
 * statements ({@link TryUnderParent}); a join on a line that may be free runs it first ({@link FirstTry}); a try sent
 * again finds its first grant ({@link LostTryAnswers}).
 *
 * <p>The decision is {@code SlotRule}'s, {@code Beat}'s and {@code ReceiptMargin}'s, written in SQL so that it needs no
 * round trip of its own; {@code GrantDecisionTest} holds the two to the same answers on random send logs. A slot is free when
 * it is due (the beat, every rule's window cap, the minimum spacing, no cool-down) and no live call of the same class
 * or a higher one waits in the line (counting a call the starvation guard lifted as its guard's class; live: its lease
 * runs and its owner can take a grant, as the grant pass reads it): a try never jumps a queue it would be behind. A try takes no turn among programs (fairPrograms): it never waits.
 */
public final class FreeSlot {

    // A try is two statements sent together (one round trip, one implicit transaction up to the driver's Sync): the
    // first locks the limit's slot row and marks it locked for the rest of the transaction (gate.slot), the second
    // decides and writes. Each statement takes its own snapshot, so the second, taken once the lock is held, sees every
    // send committed before it: it cannot miss the newest (one statement that waited for the lock would read the log as
    // of before its wait). Only a row the first statement locked is marked (MATERIALIZED: a row that SKIP LOCKED passed
    // over is never marked), and the second decides nothing without the mark (decidedAfter). Parameter: the limit.
    private static final String LOCK = "SELECT s.limit_name FROM gate_slot s WHERE s.limit_name = ? FOR UPDATE";

    // The free line's lock: never queues behind a grant pass (SKIP LOCKED: a locked slot answers as no limit, and the
    // caller joins the line instead) and leaves a limit whose programs take turns to the line (a grant there moves the
    // turns). Parameter: the limit.
    private static final String LOCK_FREE = """
            SELECT s.limit_name FROM gate_slot s JOIN gate_limit g ON g.name = s.limit_name
            WHERE s.limit_name = ? AND NOT g.fair_programs FOR UPDATE OF s SKIP LOCKED""";

    // k: the slot row the lock statement locked (the clock in t is read with the lock held). r: each rule (the limit's
    // own, at its adaptive rate if it has one (AdaptiveRate), and its more rules), its window widened by the receipt margin (declared, else 0.5% of the window, at most
    // 100 ms) and the send of the unit that must leave it before the call's cost fits (Cost.unitToLeave: for cost 1, its
    // calls-th most recent; pruned, the oldest kept after it, as SendProbe reads it: never room the log cannot see). A call of cost c logs c sends (units) and moves the beat c gaps. d: the beat's gap (the slowest rule's widened window / calls, rounded
    // up to whole microseconds, at least the minimum spacing) and the moment a send is due (the latest of the beat,
    // each cap's room, the spacing after the last send, the cool-down's end). A last send that retention pruned (older
    // than every window the limit had) is no send: the beat and each window read as empty where the log has nothing.
    // A try's answer: the mark, the clock and the reading, the grant (id, times) and what a key sent again found.
    private static final String ANSWER = """
            SELECT current_setting('gate.slot', true) AS mark, d.one_rule, d.now, d.due, d.gap_us, d.ahead, called.id,
                   called.enqueued_at, called.granted_at,
                   prior.id AS prior_id, prior.limit_name AS prior_limit, prior.call_class AS prior_class,
                   prior.enqueued_at AS prior_enqueued_at, prior.granted_at AS prior_granted_at
            """;

    // Whether a limit is of one rule: a sliding window at its declared rate (no adaptive rate, no vendor's fixed
    // blocks, no more rules). Most limits are; their tries take the one-rule form of the decision (decideOneRule).
    private static final String ONE_RULE = """
            NOT l.adaptive AND l.aligned_zone IS NULL
            AND NOT EXISTS (SELECT 1 FROM gate_limit_rule m WHERE m.limit_name = l.name) AS one_rule""";

    // The decision on a limit of one rule: decide's, where there is one unit to leave one window, no block's turn and
    // no adaptive rate, read in one row with fewer steps to plan and run (0.02-0.05 ms less: docs/benchmarks.md).
    // On a limit of more it decides nothing and answers one_rule = false: the caller runs decide's statement then. The
    // same parameters and answer as decide's.
    private static String decideOneRule(String written) {
        return """
            WITH prior AS (
                SELECT id, limit_name, call_class, enqueued_at, granted_at FROM gate_call
                WHERE owner = ? AND submission_key = ?),
            p AS (SELECT ?::int AS cost, ?::varchar AS limit_name, ?::varchar AS parent, ?::int AS rank,
                         ?::int AS lifted_rank),
            d AS MATERIALIZED (
                SELECT p.cost, s.limit_name, s.send_seq, l.burst, x.one_rule, x.now, g.gap_us, g.due,
                       (SELECT count(*) FROM (
                            SELECT 1 FROM gate_call w
                            WHERE w.limit_name = s.limit_name AND w.state = 'WAITING'
                              AND (w.call_class <= p.rank OR (l.aging_up_to <= p.lifted_rank
                                   AND w.enqueued_at < x.now - l.aging_after_ms * interval '1 millisecond'))
                              AND w.lease_expires_at > x.now
                              AND """ + InstanceLock.OWNER_ALIVE + """
                            LIMIT 1000) a) AS ahead
                FROM p JOIN gate_slot s ON s.limit_name = p.limit_name JOIN gate_limit l ON l.name = s.limit_name
                CROSS JOIN LATERAL (
                    SELECT clock_timestamp() AS now, s.send_seq - l.calls + least(p.cost, l.calls) AS unit,
                           l.window_ms + coalesce(l.receipt_margin_ms::numeric, least(l.window_ms / 200.0, 100))
                               AS wide_ms,
                           """ + ONE_RULE + """
                    ) x
                CROSS JOIN LATERAL (
                    SELECT greatest(ceil(x.wide_ms * 1000 / l.calls), l.min_interval_ms * 1000, 1) AS gap_us,
                           greatest(s.next_slot_at,
                                    """ + SendProbe.unitSent("s.limit_name", "x.unit") + """
                                        + x.wide_ms * interval '1 millisecond',
                                    CASE WHEN l.min_interval_ms > 0
                                         THEN (SELECT e.sent_at FROM gate_send e
                                               WHERE e.limit_name = s.limit_name AND e.seq = s.send_seq)
                                              + l.min_interval_ms * interval '1 millisecond' END,
                                    s.paused_until,
                                    CASE WHEN s.vendor_reset_at > x.now
                                          AND greatest(0, s.send_seq - s.vendor_after_unit) + p.cost
                                              > s.vendor_remaining
                                         THEN s.vendor_reset_at END) AS due) g
                WHERE NOT l.keyed AND l.parent_name IS NOT DISTINCT FROM p.parent
                  AND s.limit_name = current_setting('gate.slot', true)
                  AND NOT EXISTS (SELECT 1 FROM prior)),
            go AS (SELECT d.* FROM d WHERE d.one_rule AND d.now >= d.due AND d.ahead = 0),
""" + written + """
            moved AS (
                UPDATE gate_slot s
                SET send_seq = go.send_seq + go.cost,
                    next_slot_at = CASE WHEN go.now - go.due <= go.gap_us * interval '1 microsecond' THEN go.due
                                        ELSE greatest(go.due,
                                                      go.now - (go.burst - 1) * go.gap_us * interval '1 microsecond')
                                   END + go.cost * go.gap_us * interval '1 microsecond'
                FROM go, called WHERE s.limit_name = go.limit_name)
            """ + ANSWER + """
            FROM (SELECT 1) one LEFT JOIN d ON true LEFT JOIN called ON true LEFT JOIN prior ON true""";
    }

    /** The decision, writing {@code written}. */
    private static String decide(String written) {
        return """
            WITH prior AS (
                SELECT id, limit_name, call_class, enqueued_at, granted_at FROM gate_call
                WHERE owner = ? AND submission_key = ?),
            k AS MATERIALIZED (
                SELECT ?::int AS cost, s.limit_name, s.next_slot_at, s.paused_until, s.send_seq, s.vendor_after_unit,
                       s.vendor_remaining, s.vendor_reset_at, l.calls, l.window_ms,
                       l.min_interval_ms, l.receipt_margin_ms, l.burst, l.adaptive, s.adaptive_calls, s.adaptive_cut_at,
                       l.aging_after_ms, l.aging_up_to, l.aligned_zone, l.aligned_at, """ + ONE_RULE + """
                FROM gate_slot s JOIN gate_limit l ON l.name = s.limit_name
                WHERE s.limit_name = ? AND NOT l.keyed AND l.parent_name IS NOT DISTINCT FROM ?::varchar
                  AND s.limit_name = current_setting('gate.slot', true)
                  AND NOT EXISTS (SELECT 1 FROM prior)),
            t AS (SELECT clock_timestamp() AS now, k.*,
                         (SELECT sent_at FROM gate_send g WHERE g.limit_name = k.limit_name AND g.seq = k.send_seq)
                             AS last_sent
                  FROM k),
            r AS (
                SELECT rr.calls, rr.window_ms, rr.aligned_zone, rr.aligned_at,
                       coalesce(t.receipt_margin_ms::numeric, least(rr.window_ms / 200.0, 100)) AS margin_ms,
                       """ + SendProbe.unitSent("t.limit_name", "(t.send_seq - rr.calls + least(t.cost, rr.calls))")
            + """
             AS nth_sent
                FROM t CROSS JOIN LATERAL (
                    SELECT CASE WHEN t.adaptive AND t.adaptive_calls IS NOT NULL
                                THEN least(t.calls, t.adaptive_calls + greatest(1, (t.calls * 2 + 50) / 100)
                                    * (greatest(0, floor(extract(epoch FROM t.now - t.adaptive_cut_at) * 1000 / t.window_ms))::bigint / 10))::int
                                ELSE t.calls END, t.window_ms, t.aligned_zone, t.aligned_at
                    UNION ALL
                    SELECT calls, window_ms, aligned_zone, aligned_at FROM gate_limit_rule WHERE limit_name = t.limit_name)
                    rr (calls, window_ms, aligned_zone, aligned_at)),
            d AS (
                SELECT t.*,
                       greatest((SELECT max(ceil((r.window_ms + CASE WHEN r.aligned_zone IS NULL THEN r.margin_ms ELSE 0 END)
                                                 * 1000 / r.calls)) FROM r), t.min_interval_ms * 1000, 1)
                           AS gap_us,
                       greatest(least(t.next_slot_at, -- a vendor's new block: its first send is due at once
                                      (SELECT min(gate_block_end(t.last_sent + r.margin_ms * interval '1 millisecond',
                                                                 r.aligned_zone, r.aligned_at, r.window_ms))
                                       FROM r WHERE r.aligned_zone IS NOT NULL)),
                                (SELECT max(CASE WHEN r.aligned_zone IS NULL
                                                 THEN r.nth_sent + (r.window_ms + r.margin_ms) * interval '1 millisecond'
                                                 ELSE gate_block_end(r.nth_sent + r.margin_ms * interval '1 millisecond',
                                                                     r.aligned_zone, r.aligned_at, r.window_ms) END)
                                 FROM r),
                                CASE WHEN t.min_interval_ms > 0
                                     THEN t.last_sent + t.min_interval_ms * interval '1 millisecond' END,
                                t.paused_until,
                                -- the vendor said fewer were left, until its reset (VendorCount)
                                CASE WHEN t.vendor_reset_at > t.now
                                      AND greatest(0, t.send_seq - t.vendor_after_unit) + t.cost > t.vendor_remaining
                                     THEN t.vendor_reset_at END) AS due,
                       (SELECT count(*) FROM (
                            SELECT 1 FROM gate_call w
                            WHERE w.limit_name = t.limit_name AND w.state = 'WAITING'
                              AND (w.call_class <= ? OR (t.aging_up_to <= ?  -- lifted by the starvation guard
                                   AND w.enqueued_at < t.now - t.aging_after_ms * interval '1 millisecond'))
                              AND w.lease_expires_at > t.now
                              AND """ + InstanceLock.OWNER_ALIVE + """
                            LIMIT 1000) a) AS ahead
                FROM t),
            go AS (SELECT d.* FROM d WHERE d.now >= d.due AND d.ahead = 0),
""" + written + """
            moved AS (
                UPDATE gate_slot s
                SET send_seq = go.send_seq + go.cost,
                    next_slot_at = least(CASE WHEN go.now - go.due <= go.gap_us * interval '1 microsecond' THEN go.due
                                        ELSE greatest(go.due, go.now - (go.burst - 1) * go.gap_us * interval '1 microsecond')
                                   END + go.cost * go.gap_us * interval '1 microsecond',
                                   -- the block's turn (gate_block_turn), from the rules read above
                                   (SELECT min(gate_block_end(go.now + r.margin_ms * interval '1 millisecond',
                                                              r.aligned_zone, r.aligned_at, r.window_ms))
                                    FROM r WHERE r.aligned_zone IS NOT NULL))
                FROM go, called WHERE s.limit_name = go.limit_name)
            """ + ANSWER + """
            FROM (SELECT 1) one LEFT JOIN d ON true LEFT JOIN called ON true LEFT JOIN prior ON true""";
    }

    // What a grant writes: its call (called: id, enqueued_at, granted_at) and its units in the send log (sent).
    // Parameters: class, program, owner, lease, lease again (its end), the try's key. A try's call is GRANTED; a
    // consume's with the caller's key DONE at its grant (no outcome, no lease to run), found again by its key.
    private static String callRow(boolean done) {
        return """
            called AS (
                INSERT INTO gate_call (limit_name, call_class, program, owner, state, enqueued_at, granted_at,
                                       lease_ms, lease_expires_at, submission_key, done_at, cost)
                SELECT go.limit_name, ?, ?, ?, '%s', go.now, go.now, ?, go.now + ? * interval '1 millisecond', ?,
                       %s, go.cost
                FROM go
                ON CONFLICT DO NOTHING
                RETURNING id, enqueued_at, granted_at),
            sent AS (
                INSERT INTO gate_send (limit_name, call_id, sent_at, slot_at, seq)
                SELECT go.limit_name, called.id, go.now, go.due, go.send_seq + u
                FROM go, called, generate_series(1, go.cost) u),
""".formatted(done ? "DONE" : "GRANTED", done ? "go.now" : "NULL");
    }

    private static final String GRANTED_CALL = callRow(false);

    private static final String DONE_CALL = callRow(true);

    // A consume without a key writes no call row (nothing would ever look it up by a key, and no lease or outcome
    // follows): its id is drawn from the calls' identity (one id names one call, whichever table holds it), and its
    // units record who sent it and its class (the send log is its record: CallReads finds it there by its id).
    // Parameters as above; the lease and key are bound but unused.
    private static final String SENT_ONLY = """
            called AS (
                SELECT nextval('gate_call_id_seq') AS id, go.now AS enqueued_at, go.now AS granted_at,
                       ?::smallint AS call_class, ?::varchar AS program, ?::varchar AS owner,
                       ?::bigint AS lease_ms, ?::bigint AS lease_end_ms, ?::varchar AS submission_key
                FROM go),
            sent AS (
                INSERT INTO gate_send (limit_name, call_id, sent_at, slot_at, seq, program, owner, call_class)
                SELECT go.limit_name, called.id, go.now, go.due, go.send_seq + u, called.program, called.owner,
                       called.call_class
                FROM go, called, generate_series(1, go.cost) u),
""";

    /**
     * A try's two statements in two forms: {@code any} decides on every limit, {@code oneRule} only on a limit of one
     * rule (the most common; on any other it decides nothing and answers so, and {@code any} runs after it).
     */
    record TryStatement(String any, String oneRule) {
    }

    // A try: the slot locked, then the decision. Parameters: the limit, then the decision's.
    static final TryStatement TRY = decidedAfter(LOCK);

    // An acquire on a free line: the try, on the free line's lock. Same parameters and answer as TRY.
    static final TryStatement FREE_LINE = decidedAfter(LOCK_FREE);

    /**
     * A try's two statements: {@code lockedRows} (one parameter, the limit; it selects the slot row's {@code limit_name}
     * with its lock), the row it locked marked (gate.slot), then the decision. The mark is set from a MATERIALIZED
     * result, so only for a row the select did lock; its answer is a boolean, of a known size: a column of unknown size
     * would make the driver send a Sync between the two (its guard against a full receive buffer), and the lock would
     * end with the first.
     */
    static TryStatement decidedAfter(String lockedRows) {
        return decidedAfter(lockedRows, GRANTED_CALL);
    }

    /** As above, the grant writing {@code written} ({@link #GRANTED_CALL}, {@link #DONE_CALL} or {@link #SENT_ONLY}). */
    private static TryStatement decidedAfter(String lockedRows, String written) {
        String locked = lockedAndMarked(lockedRows) + ";\n";
        return new TryStatement(locked + decide(written), locked + decideOneRule(written));
    }

    /** The first statement of a try or a group: {@code lockedRows} locked, the row it locked marked (gate.slot). */
    private static String lockedAndMarked(String lockedRows) {
        return "WITH l AS MATERIALIZED (" + lockedRows + ")\n"
                + "SELECT set_config('gate.slot', l.limit_name, true) IS NOT NULL AS locked FROM l";
    }

    // A consuming try (the call is the request itself, an inbound limit's): the try statement, but the call it writes
    // is granted and ended at once, DONE with no outcome, so nothing waits for a report and no lease runs. Same
    // parameters and answer as TRY; the same send log and the same beat. With the caller's key (found again by it).
    static final TryStatement CONSUME = decidedAfter(LOCK, DONE_CALL);

    // A consume without the caller's key: no call row, its sends its record (SENT_ONLY). Same parameters and answer.
    static final TryStatement CONSUME_SENT_ONLY = decidedAfter(LOCK, SENT_ONLY);

    /**
     * Most tries one group decides: its call holds the slot row's lock through each member's decision, and a caller's
     * answer waits for its whole group.
     */
    public static final int MOST_TOGETHER = 16;

    // Tries of a limit with no parent that arrived at it together (GroupTrying; on the free line, FirstTry): the slot
    // row locked and marked, then the group's decisions in one call (gate_try_group, migration 040: the try's own
    // decision, member by member in the order given, each on what the ones before it sent, the group's sends in one
    // insert and the slot row updated once), both sent before one Sync: one round trip and one commit for the group.
    // Each member writes as its kind does (a try its GRANTED call, a consume with a key its DONE one, a consume without
    // one no call row: its units record who and which class). The answer's columns are of a fixed size: the driver
    // sends a Sync before a statement whose answer may be of unknown size (its guard against a full receive buffer),
    // which would end the lock's transaction. Parameters: the limit (the lock's), then the limit and the members'
    // classes, costs, programs, owners, leases (ms), keys and whether each consumes, in class order.
    static final GroupStatement TOGETHER = new GroupStatement(LOCK);

    // Acquires on the free line that arrived together: as TOGETHER, on the free line's lock (never queued on), not
    // taken at all while a live call of the group's highest class or a higher one waits: then every member would count
    // it ahead and be refused, and the group would hold the slot's lock for nothing (a grant pass waiting behind it).
    // Parameters: the limit, the group's highest class, then the decision's.
    private static final String LOCK_FREE_GROUP = """
            SELECT s.limit_name FROM gate_slot s JOIN gate_limit g ON g.name = s.limit_name
            WHERE s.limit_name = ? AND NOT g.fair_programs
              AND NOT EXISTS (SELECT 1 FROM gate_call w
                              WHERE w.limit_name = s.limit_name AND w.state = 'WAITING' AND w.call_class <= ?
                                AND w.lease_expires_at > clock_timestamp() AND """ + InstanceLock.OWNER_ALIVE + """
            )
            FOR UPDATE OF s SKIP LOCKED""";

    static final GroupStatement FREE_TOGETHER = new GroupStatement(LOCK_FREE_GROUP, true);

    /** A group's statement on one lock: the lock, marked, then the group's decisions (gate_try_group). */
    static final class GroupStatement {
        private final String sql;
        private final boolean byClass;

        GroupStatement(String lockedRows) {
            this(lockedRows, false);
        }

        /** {@code byClass}: the lock takes the group's highest class (its rank) after the limit. */
        GroupStatement(String lockedRows, boolean byClass) {
            this.sql = lockedAndMarked(lockedRows) + ";\nSELECT * FROM gate_try_group(?, ?, ?, ?, ?, ?, ?, ?)";
            this.byClass = byClass;
        }
    }

    /** The try statement for a try, or for a consume with or without the caller's {@code key}. */
    static TryStatement statement(boolean consume, String key) {
        return !consume ? TRY : key == null ? CONSUME_SENT_ONLY : CONSUME;
    }

    /**
     * What a try found: the grant, or when to try again. With the statement's clock and the moment a send was due by its reading (both null when a key's parent said not now:
     * its statement did not run). {@code repeated}: the try's key named a grant
     * made before (a try sent again after its answer was lost), answered as it is, nothing taken.
     */
    public record Result(Optional<Grant> grant, Duration retryAfter, Instant now, Instant due, boolean repeated) {
    }

    private final Tx tx;
    private final FirstTry freeLine;
    private final TryUnderParent underParent;

    public FreeSlot(Tx tx) {
        this.tx = tx;
        this.freeLine = new FirstTry(tx);
        this.underParent = new TryUnderParent(tx);
    }

    /**
     * Takes the slot of {@code limit} for a new call of {@code owner} if it is free now; empty when there is no such
     * limit.
     */
    public Optional<Result> take(String limit, CallClass callClass, String program, String owner, Duration lease,
                                 String key) throws StoreUnavailable {
        return take(limit, callClass, Cost.ONE, program, owner, lease, key);
    }

    /** As above, for a call of {@code cost} units. */
    public Optional<Result> take(String limit, CallClass callClass, Cost cost, String program, String owner,
                                 Duration lease, String key) throws StoreUnavailable {
        return take(limit, callClass, cost, program, owner, lease, key, false);
    }

    /**
     * As above; {@code consume}: the call granted is ended at once ({@link #CONSUME}: DONE, no outcome to report).
     */
    public Optional<Result> take(String limit, CallClass callClass, Cost cost, String program, String owner,
                                 Duration lease, String key, boolean consume) throws StoreUnavailable {
        TryStatement sql = statement(consume, key);
        return tx.runAlone(c -> take(c, sql, limit, null, callClass, cost, program, owner, lease, key)); // commit included
    }

    /**
     * A join's first step when its line may be free: a new GRANTED call of {@code owner} if the slot is free this
     * moment and nobody of this class or a higher one waits; empty, and nothing written, otherwise ({@link FirstTry}).
     */
    public Optional<Grant> takeIfFree(String limit, CallClass callClass, Cost cost, String program, String owner,
                                      Duration lease, String key) throws StoreUnavailable {
        return freeLine.takeIfFree(limit, callClass, cost, program, owner, lease, key);
    }

    /**
     * As {@link #take}, on a key under {@code parent}: the key's slot and the parent's must both be free now
     * ({@link TryUnderParent}); {@code consume}: the call granted is ended at once ({@link #CONSUME}).
     */
    public Optional<Result> takeUnder(String limit, String parent, CallClass callClass, String program, String owner,
                                      Duration lease, String key, boolean consume) throws StoreUnavailable {
        return underParent.takeUnder(limit, parent, callClass, program, owner, lease, key,
                statement(consume, key));
    }

    /**
     * One try of a group, of a limit with no parent: {@code key} the caller's or the try's own (null: a consume
     * without one, which writes no call row); {@code consume}: ended at its grant.
     */
    public record Try(CallClass callClass, Cost cost, String program, String owner, Duration lease, String key,
                      boolean consume) {
    }

    /**
     * A try's answer in a group: its result (empty: no such limit), or its key was used before for another limit or
     * a call never granted (the program's mistake: thrown to that caller alone, the others' answers stand).
     */
    public record Decided(Optional<Result> result, SubmissionKeyReused reused) {

        /** The result; throws the key's misuse. */
        public Optional<Result> get() {
            if (reused != null) {
                throw reused;
            }
            return result;
        }
    }

    /**
     * Tries of {@code limit} that arrived together, decided in class order (first come first served inside a class)
     * in one round trip and one commit ({@link #grouped}); one answer per try, in their order.
     */
    public List<Decided> takeTogether(String limit, List<Try> tries) throws StoreUnavailable {
        return tx.runAlone(c -> together(c, TOGETHER, limit, tries)); // commit included
    }

    /**
     * As {@link #takeTogether}, on the free line (acquires that would join the line if not granted: {@link FirstTry}).
     * A try's result is empty when the group did not take the slot's lock (held, or no such limit).
     */
    public List<Decided> takeIfFreeTogether(String limit, List<Try> tries) throws StoreUnavailable {
        return freeLine.takeIfFreeTogether(limit, tries);
    }

    /** {@code tries} decided as one group on {@code statement}'s lock, on {@code c}; its commit is the caller's. */
    static List<Decided> together(Connection c, GroupStatement statement, String limit, List<Try> tries)
            throws SQLException {
        int n = tries.size();
        if (n < 1 || n > MOST_TOGETHER) {
            throw new IllegalArgumentException("a group of " + n + " tries: 1 to " + MOST_TOGETHER);
        }
        // the class order, stable: inside a class the order they came in
        List<Integer> order = java.util.stream.IntStream.range(0, n).boxed()
                .sorted(java.util.Comparator.comparingInt(i -> tries.get(i).callClass().rank())).toList();
        List<Try> ordered = order.stream().map(tries::get).toList();
        Decided[] answers = new Decided[n];
        try (PreparedStatement ps = c.prepareStatement(statement.sql)) {
            if (ps.isWrapperFor(org.postgresql.PGStatement.class)) { // prepared on the server at its first run
                ps.unwrap(org.postgresql.PGStatement.class).setPrepareThreshold(1);
            }
            int p = 1;
            ps.setString(p++, limit); // the lock's
            if (statement.byClass) {
                ps.setInt(p++, ordered.get(0).callClass().rank());
            }
            ps.setString(p++, limit);
            ps.setArray(p++, c.createArrayOf("int4", ordered.stream().map(t -> t.callClass().rank()).toArray()));
            ps.setArray(p++, c.createArrayOf("int4", ordered.stream().map(t -> t.cost().units()).toArray()));
            ps.setArray(p++, c.createArrayOf("varchar", ordered.stream().map(Try::program).toArray()));
            ps.setArray(p++, c.createArrayOf("varchar", ordered.stream().map(Try::owner).toArray()));
            ps.setArray(p++, c.createArrayOf("int8", ordered.stream().map(t -> t.lease().toMillis()).toArray()));
            ps.setArray(p++, c.createArrayOf("varchar", ordered.stream().map(Try::key).toArray()));
            ps.setArray(p, c.createArrayOf("bool", ordered.stream().map(Try::consume).toArray()));
            ps.execute();
            boolean locked;
            try (ResultSet lock = ps.getResultSet()) {
                locked = lock.next();
            }
            if (!ps.getMoreResults()) {
                throw new SQLException("a group's decisions gave no answer");
            }
            try (ResultSet rs = ps.getResultSet()) {
                for (int i : order) {
                    if (!rs.next()) {
                        throw new SQLException("a group's decisions answered fewer tries than it has");
                    }
                    if (locked && !rs.getBoolean("marked")) {
                        throw new IllegalStateException("a group's lock and its decisions ran in two transactions: "
                                + "the JDBC driver split them");
                    }
                    answers[i] = decided(rs, limit, tries.get(i));
                }
            }
        }
        for (int i = 0; i < n; i++) { // a key used before elsewhere: its limit, for the program's error
            if (answers[i] == null) {
                answers[i] = new Decided(Optional.empty(), new SubmissionKeyReused(tries.get(i).key(),
                        priorLimit(c, tries.get(i))));
            }
        }
        return List.of(answers);
    }

    /** A grouped try's row read; null when its key was used before for another limit or a call never granted. */
    private static Decided decided(ResultSet rs, String limit, Try t) throws SQLException {
        long priorId = rs.getLong("prior_id");
        if (!rs.wasNull()) {
            Instant grantedAt = Times.get(rs, "prior_granted_at");
            if (grantedAt == null || !rs.getBoolean("prior_here")) {
                return null;
            }
            return new Decided(Optional.of(LostTryAnswers.repeated(rs, priorId, limit, t.owner(), grantedAt)), null);
        }
        return new Decided(read(rs, limit, t.callClass(), t.owner()), null);
    }

    private static String priorLimit(Connection c, Try t) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT limit_name FROM gate_call WHERE owner = ? AND submission_key = ?")) {
            ps.setString(1, t.owner());
            ps.setString(2, t.key());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /**
     * @param key the try's own key (gate_call.submission_key, unique per owner): sent again after a lost answer, the
     *            same key finds the grant the first one made instead of taking a second slot
     */
    static Optional<Result> take(Connection c, String limit, CallClass callClass, String program, String owner,
                                 Duration lease, String key) throws SQLException {
        return take(c, limit, null, callClass, program, owner, lease, key);
    }

    /** As above, on a key under {@code parent} (null: a limit with no parent); a limit with another parent is none. */
    static Optional<Result> take(Connection c, String limit, String parent, CallClass callClass, String program,
                                 String owner, Duration lease, String key) throws SQLException {
        return take(c, TRY, limit, parent, callClass, program, owner, lease, key);
    }

    /** The try statement {@code sql} ({@link #TRY} or {@link #FREE_LINE}) bound and run, its one row read. */
    static Optional<Result> take(Connection c, TryStatement sql, String limit, String parent, CallClass callClass,
                                 String program, String owner, Duration lease, String key)
            throws SQLException {
        return take(c, sql, limit, parent, callClass, Cost.ONE, program, owner, lease, key);
    }

    /**
     * As above, for a call of {@code cost}: on a limit with no parent that was of one rule when last seen, the
     * one-rule form first ({@link TryStatement}); on one it finds of more (declared otherwise since), the other form
     * after it, in a transaction of its own when {@code c} commits each (the first wrote nothing: it held the lock).
     */
    static Optional<Result> take(Connection c, TryStatement sql, String limit, String parent, CallClass callClass,
                                 Cost cost, String program, String owner, Duration lease, String key)
            throws SQLException {
        if (parent == null && ONE_RULE_FORM && ONE_RULE_LIMITS.mayBeOneRule(limit)) {
            Optional<Result> first = take(c, sql.oneRule(), true, limit, parent, callClass, cost, program, owner, lease,
                    key);
            if (first != NOT_ONE_RULE) {
                return first;
            }
        }
        return take(c, sql.any(), false, limit, parent, callClass, cost, program, owner, lease, key);
    }

    // Benchmarks only (-Dgate.try.anyForm=true): every try by the form for any limit, to measure the one-rule form.
    private static final boolean ONE_RULE_FORM = !Boolean.getBoolean("gate.try.anyForm");

    // The one-rule form's answer on a limit of more rules: it decided nothing.
    private static final Optional<Result> NOT_ONE_RULE = Optional.of(new Result(Optional.empty(), Duration.ZERO, null,
            null, false));

    // Which limits were of one rule when last seen; a hint only (the form checks), shared by every try of this JVM.
    private static final OneRuleLimits ONE_RULE_LIMITS = new OneRuleLimits();

    /**
     * One form's text bound and run, its one row read; {@code oneRuleForm}: {@link #NOT_ONE_RULE} on a limit of more.
     * Package-private for the test that holds both forms to the rules.
     */
    static Optional<Result> take(Connection c, String sql, boolean oneRuleForm, String limit, String parent,
                                 CallClass callClass, Cost cost, String program, String owner, Duration lease,
                                 String key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, limit); // the lock's
            bindDecision(ps, 2, limit, parent, callClass, cost, program, owner, lease, key);
            ps.execute(); // the lock's answer first (one round trip for both: the driver sends them before one Sync)
            boolean locked;
            try (ResultSet lock = ps.getResultSet()) {
                locked = lock.next();
            }
            if (!ps.getMoreResults()) {
                throw new SQLException("the try's decision gave no answer");
            }
            try (ResultSet rs = ps.getResultSet()) {
                rs.next(); // always one row
                if (locked && !limit.equals(rs.getString("mark"))) {
                    // the lock's transaction ended before the decision ran: it would decide nothing, for ever
                    throw new IllegalStateException("the try's two statements ran in two transactions: the JDBC "
                            + "driver split them (preferQueryMode=simple is not supported)");
                }
                Optional<Result> sentAgain = LostTryAnswers.found(rs, limit, owner, key);
                if (sentAgain.isPresent()) {
                    return sentAgain;
                }
                boolean oneRule = rs.getBoolean("one_rule");
                if (!rs.wasNull() && parent == null) {
                    ONE_RULE_LIMITS.seen(limit, oneRule);
                    if (oneRuleForm && !oneRule) {
                        return NOT_ONE_RULE;
                    }
                }
                return read(rs, limit, callClass, owner);
            }
        }
    }

    /** Whether {@code result} is the one-rule form's answer on a limit of more rules. */
    static boolean notOneRule(Optional<Result> result) {
        return result == NOT_ONE_RULE;
    }

    /** Binds one decision's parameters from {@code from} on (the lock's come before); answers the next index. */
    private static int bindDecision(PreparedStatement ps, int from, String limit, String parent, CallClass callClass,
                                    Cost cost, String program, String owner, Duration lease, String key)
            throws SQLException {
        ps.setString(from, owner);
        ps.setString(from + 1, key);
        ps.setInt(from + 2, cost.units());
        ps.setString(from + 3, limit);
        ps.setString(from + 4, parent);
        ps.setInt(from + 5, callClass.rank());
        ps.setInt(from + 6, callClass.rank());
        ps.setInt(from + 7, callClass.rank());
        ps.setString(from + 8, program);
        ps.setString(from + 9, owner);
        ps.setLong(from + 10, lease.toMillis());
        ps.setLong(from + 11, lease.toMillis());
        ps.setString(from + 12, key);
        return from + 13;
    }

    /** A decision's row read: the grant, or when to try again; empty when there is no such limit. */
    private static Optional<Result> read(ResultSet rs, String limit, CallClass callClass, String owner)
            throws SQLException {
        Instant now = Times.get(rs, "now");
        if (now == null) {
            return Optional.empty(); // no such limit
        }
        Instant due = Times.get(rs, "due");
        Duration gap = Duration.ofNanos(rs.getLong("gap_us") * 1_000);
        long ahead = rs.getLong("ahead");
        long id = rs.getLong("id");
        if (!rs.wasNull()) {
            return Optional.of(new Result(Optional.of(new Grant(id, limit, callClass, owner,
                    Times.get(rs, "enqueued_at"), Times.get(rs, "granted_at"), false)), Duration.ZERO, now, due,
                    false));
        }
        // not now: the slot is due later, or the calls ahead take the next ones (a gap each, at least)
        Duration untilDue = due.isAfter(now) ? Duration.between(now, due) : Duration.ZERO;
        Duration retryAfter = untilDue.plus(gap.multipliedBy(ahead));
        return Optional.of(new Result(Optional.empty(), retryAfter, now, due, false));
    }
}
