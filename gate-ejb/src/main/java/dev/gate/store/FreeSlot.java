package dev.gate.store;

import dev.gate.domain.Grant;

import dev.gate.api.CallClass;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Try now: takes a limit's slot for a new call if one is free at this moment, else says when to try again, leaving
 * nothing in the line. One statement (one round trip): it locks the limit's slot row, decides as the grant pass
 * does, and if the slot is free writes the call as GRANTED, its send and the moved beat. A key under a parent takes
 * the parent's slot too, in one transaction around that statement ({@link #takeUnder}).
 *
 * <p>The decision is {@code SlotRule}'s, {@code Beat}'s and {@code ReceiptMargin}'s, written in SQL so that it needs no
 * second round trip; {@code GrantDecisionTest} holds the two to the same answers on random send logs. A slot is free when
 * it is due (the beat, every rule's window cap, the minimum spacing, no cool-down) and no live call of the same class
 * or a higher one waits in the line (counting a call the starvation guard lifted as its guard's class): a try never
 * jumps a queue it would be behind. A try takes no turn among programs (fairPrograms): it never waits.
 */
public final class FreeSlot {

    // k: the slot row, locked (MATERIALIZED: the clock in t is read once the lock is held). r: each rule (the limit's
    // own, at its adaptive rate if it has one (AdaptiveRate), and its more rules), its window widened by the receipt margin (declared, else 0.5% of the window, at most
    // 100 ms) and its calls-th most recent send. d: the beat's gap (the slowest rule's widened window / calls, rounded
    // up to whole microseconds, at least the minimum spacing) and the moment a send is due (the latest of the beat,
    // each cap's room, the spacing after the last send, the cool-down's end). If another grant committed after this
    // statement's snapshot, its send is missing here (stale): the caller asks again, in a new statement.
    static final String TRY = """
            WITH prior AS (
                SELECT id, limit_name, call_class, enqueued_at, granted_at FROM gate_call
                WHERE owner = ? AND submission_key = ?),
            k AS MATERIALIZED (
                SELECT s.limit_name, s.next_slot_at, s.paused_until, s.send_seq, l.calls, l.window_ms,
                       l.min_interval_ms, l.receipt_margin_ms, l.burst, l.adaptive, s.adaptive_calls, s.adaptive_cut_at,
                       l.aging_after_ms, l.aging_up_to
                FROM gate_slot s JOIN gate_limit l ON l.name = s.limit_name
                WHERE s.limit_name = ? AND NOT l.keyed AND l.parent_name IS NOT DISTINCT FROM ?::varchar
                  AND NOT EXISTS (SELECT 1 FROM prior)
                FOR UPDATE OF s),
            t AS (SELECT clock_timestamp() AS now, k.*,
                         (SELECT sent_at FROM gate_send g WHERE g.limit_name = k.limit_name AND g.seq = k.send_seq)
                             AS last_sent
                  FROM k),
            r AS (
                SELECT rr.calls, rr.window_ms + coalesce(t.receipt_margin_ms::numeric, least(rr.window_ms / 200.0, 100))
                           AS counted_ms,
                       (SELECT g.sent_at FROM gate_send g
                        WHERE g.limit_name = t.limit_name AND g.seq = t.send_seq - rr.calls + 1) AS nth_sent
                FROM t CROSS JOIN LATERAL (
                    SELECT CASE WHEN t.adaptive AND t.adaptive_calls IS NOT NULL
                                THEN least(t.calls, t.adaptive_calls + greatest(1, (t.calls * 2 + 50) / 100)
                                    * (greatest(0, floor(extract(epoch FROM t.now - t.adaptive_cut_at) * 1000 / t.window_ms))::bigint / 10))::int
                                ELSE t.calls END, t.window_ms
                    UNION ALL
                    SELECT calls, window_ms FROM gate_limit_rule WHERE limit_name = t.limit_name) rr),
            d AS (
                SELECT t.*,
                       t.send_seq > 0 AND t.last_sent IS NULL AS stale,
                       greatest((SELECT max(ceil(r.counted_ms * 1000 / r.calls)) FROM r), t.min_interval_ms * 1000, 1)
                           AS gap_us,
                       greatest(t.next_slot_at,
                                (SELECT max(r.nth_sent + r.counted_ms * interval '1 millisecond') FROM r),
                                CASE WHEN t.min_interval_ms > 0
                                     THEN t.last_sent + t.min_interval_ms * interval '1 millisecond' END,
                                t.paused_until) AS due,
                       (SELECT count(*) FROM (
                            SELECT 1 FROM gate_call w
                            WHERE w.limit_name = t.limit_name AND w.state = 'WAITING'
                              AND (w.call_class <= ? OR (t.aging_up_to <= ?  -- lifted by the starvation guard
                                   AND w.enqueued_at < t.now - t.aging_after_ms * interval '1 millisecond'))
                              AND w.lease_expires_at > t.now
                            LIMIT 1000) a) AS ahead
                FROM t),
            go AS (SELECT d.* FROM d WHERE NOT d.stale AND d.now >= d.due AND d.ahead = 0),
            called AS (
                INSERT INTO gate_call (limit_name, call_class, program, owner, state, enqueued_at, granted_at,
                                       lease_ms, lease_expires_at, submission_key)
                SELECT go.limit_name, ?, ?, ?, 'GRANTED', go.now, go.now, ?, go.now + ? * interval '1 millisecond', ?
                FROM go
                ON CONFLICT DO NOTHING
                RETURNING id, enqueued_at, granted_at),
            sent AS (
                INSERT INTO gate_send (limit_name, call_id, sent_at, slot_at, seq)
                SELECT go.limit_name, called.id, go.now, go.due, go.send_seq + 1 FROM go, called),
            moved AS (
                UPDATE gate_slot s
                SET send_seq = go.send_seq + 1,
                    next_slot_at = CASE WHEN go.now - go.due <= go.gap_us * interval '1 microsecond' THEN go.due
                                        ELSE greatest(go.due, go.now - (go.burst - 1) * go.gap_us * interval '1 microsecond')
                                   END + go.gap_us * interval '1 microsecond'
                FROM go, called WHERE s.limit_name = go.limit_name)
            SELECT d.now, d.due, d.gap_us, d.ahead, d.stale, called.id, called.enqueued_at, called.granted_at,
                   prior.id AS prior_id, prior.limit_name AS prior_limit, prior.call_class AS prior_class,
                   prior.enqueued_at AS prior_enqueued_at, prior.granted_at AS prior_granted_at
            FROM (SELECT 1) one LEFT JOIN d ON true LEFT JOIN called ON true LEFT JOIN prior ON true""";

    // An acquire on a free line: the try statement, but it never queues behind a grant pass (SKIP LOCKED: a locked slot
    // answers as no limit, and the caller joins the line instead) and leaves a limit whose programs take turns to the
    // line (a grant there moves the turns). Same parameters and answer as TRY.
    static final String FREE_LINE = freeLine(TRY);

    private static String freeLine(String tryStatement) {
        String lock = "FOR UPDATE OF s),";
        int at = tryStatement.indexOf(lock);
        if (at < 0 || tryStatement.indexOf(lock, at + 1) >= 0) {
            throw new IllegalStateException("the try statement's slot lock is not where the free line expects it");
        }
        return tryStatement.substring(0, at) + "AND NOT l.fair_programs FOR UPDATE OF s SKIP LOCKED),"
                + tryStatement.substring(at + lock.length());
    }

    // A try on a key under a parent locks the key's slot first (and learns whether its key was sent before).
    // Parameters: owner, submission key, limit.
    private static final String LOCK_KEY = """
            SELECT EXISTS (SELECT 1 FROM gate_call WHERE owner = ? AND submission_key = ?) AS prior
            FROM gate_slot s WHERE s.limit_name = ? FOR UPDATE OF s""";

    /** Come back after this when a grant pass holds the parent's slot: it is granting on it right now. */
    static final Duration PARENT_BUSY = Duration.ofMillis(20);

    /**
     * What a try found: the grant, or when to try again; {@code stale}: ask again (see {@link #TRY}). With the
     * statement's clock and the moment a send was due by its reading (both null when a key's parent said not now:
     * its statement did not run). {@code repeated}: the try's key named a grant
     * made before (a try sent again after its answer was lost), answered as it is, nothing taken.
     */
    public record Result(Optional<Grant> grant, Duration retryAfter, boolean stale, Instant now, Instant due,
                         boolean repeated) {
    }

    private final Tx tx;

    public FreeSlot(Tx tx) {
        this.tx = tx;
    }

    /**
     * Takes the slot of {@code limit} for a new call of {@code owner} if it is free now; empty when there is no such
     * limit.
     */
    public Optional<Result> take(String limit, CallClass callClass, String program, String owner, Duration lease,
                                 String key) throws StoreUnavailable {
        return tx.runAlone(c -> take(c, limit, callClass, program, owner, lease, key)); // commit included
    }

    /**
     * A join's first step when its line may be free: a new GRANTED call of {@code owner} if the slot is free this
     * moment and nobody of this class or a higher one waits (no WAITING row, no notification: nobody else can know
     * the new id). One statement when the slot's lock is free; when another caller holds it, a transaction that waits
     * for the lock first, so the statement's snapshot sees that caller's send (never stale), as a queue on the lock
     * gives the next caller the slot. Empty, and nothing written, when the line is not free, the limit's programs take
     * turns, the key was used before, or there is no such limit: the caller joins the line as usual then.
     */
    public Optional<Grant> takeIfFree(String limit, CallClass callClass, String program, String owner, Duration lease,
                                      String key) throws StoreUnavailable {
        Optional<Result> first = tx.runAlone(c -> takeFree(c, FREE_LINE, limit, callClass, program, owner, lease, key));
        if (first.isPresent() && !first.get().stale()) {
            return first.flatMap(FreeSlot::newGrant); // granted, or not free now
        }
        // the slot's lock was held (or a grant committed after the statement's snapshot): queue on the lock, but only
        // while nothing waits in the line (the holder is another caller on the free line then, never a grant pass)
        if (joinsWhenLocked.joins(limit)) {
            return Optional.empty();
        }
        return tx.run(c -> {
            try (PreparedStatement ps = c.prepareStatement(LOCK_FREE_LINE)) {
                ps.setString(1, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        joinsWhenLocked.noted(limit);
                        return Optional.<Grant>empty(); // no such limit, or one the free line leaves to the join
                    }
                }
            }
            return takeFree(c, TRY, limit, callClass, program, owner, lease, key).flatMap(FreeSlot::newGrant);
        });
    }

    /**
     * The limits whose held slot lock the free line lately found it should not queue on (calls waiting, a burst
     * allowance, turns...): for a second, a call that meets the lock there joins at once, without asking again (a
     * transaction each; joining is always allowed, the free line only saves time: SideBySide, 4 and 16 callers,
     * 8-12% more cycles a second). At most {@link #MAX} limits.
     */
    static final class JoinsWhenLocked {
        static final int MAX = 10_000;
        private static final long FOR_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);
        private final java.util.concurrent.ConcurrentHashMap<String, Long> until =
                new java.util.concurrent.ConcurrentHashMap<>();

        boolean joins(String limit) {
            Long t = until.get(limit);
            if (t == null) {
                return false;
            }
            if (t - System.nanoTime() > 0) {
                return true;
            }
            until.remove(limit, t);
            return false;
        }

        void noted(String limit) {
            if (until.size() >= MAX) {
                until.clear(); // many contended limits at once (keys): forget them all rather than grow
            }
            until.put(limit, System.nanoTime() + FOR_NANOS);
        }

        int size() {
            return until.size();
        }
    }

    private final JoinsWhenLocked joinsWhenLocked = new JoinsWhenLocked();

    // The free line's lock wait: the slot of a plain limit (no turns, no parent), held until the try's commit; not
    // taken at all while any live call waits in the line. Then a grant pass may hold the lock (it holds it through
    // its wait for the slot, and grants what joined meanwhile): the call joins at once, never queueing behind a pass
    // that would give the slot to the line meanwhile. The try statement decides exactly once the lock is held.
    // A limit with a burst allowance is never queued on: its grant passes grant runs (every call due at one moment in
    // one statement), so callers that meet on its lock join the line and are granted together, which beat taking the
    // lock one after the other (SideBySide, 16 callers: 1,722 against 1,025 a second).
    private static final String LOCK_FREE_LINE = """
            SELECT 1 FROM gate_slot s JOIN gate_limit l ON l.name = s.limit_name
            WHERE s.limit_name = ? AND NOT l.keyed AND NOT l.fair_programs AND l.parent_name IS NULL AND l.burst = 1
              AND NOT EXISTS (SELECT 1 FROM gate_call w
                              WHERE w.limit_name = s.limit_name AND w.state = 'WAITING'
                                AND w.lease_expires_at > clock_timestamp())
            FOR UPDATE OF s""";

    private static Optional<Result> takeFree(Connection c, String sql, String limit, CallClass callClass,
                                             String program, String owner, Duration lease, String key)
            throws SQLException {
        try {
            return take(c, sql, limit, null, callClass, program, owner, lease, key);
        } catch (SubmissionKeyReused e) {
            return Optional.of(new Result(Optional.empty(), Duration.ZERO, false, null, null, true));
        }
    }

    /** A result's new grant: none for a key used before (the join finds that call, or refuses the key itself). */
    private static Optional<Grant> newGrant(Result r) {
        return r.repeated() ? Optional.empty() : r.grant();
    }

    /**
     * As above, on a key under {@code parent}: the key's slot and the parent's must both be free now, and no call of
     * this class or a higher one may wait in the parent's own line. One transaction of four round trips (a try on a
     * limit without a parent stays one statement): the key's slot is locked, then the parent's (lock order: key, then
     * parent, as a grant pass takes them; SKIP LOCKED, so a try never queues behind a pass), and the parent is
     * decided before the key's statement records the send, which is therefore never before the parent's slot.
     */
    public Optional<Result> takeUnder(String limit, String parent, CallClass callClass, String program, String owner,
                                      Duration lease, String key) throws StoreUnavailable {
        return tx.run(c -> takeUnder(c, limit, parent, callClass, program, owner, lease, key));
    }

    static Optional<Result> takeUnder(Connection c, String limit, String parent, CallClass callClass, String program,
                                      String owner, Duration lease, String key) throws SQLException {
        boolean prior;
        try (PreparedStatement ps = c.prepareStatement(LOCK_KEY)) {
            ps.setString(1, owner);
            ps.setString(2, key);
            ps.setString(3, limit);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty(); // no such key (removed as idle): the caller opens it again
                }
                prior = rs.getBoolean("prior");
            }
        }
        if (prior) { // sent again: answered as it is, nothing taken
            return take(c, limit, parent, callClass, program, owner, lease, key);
        }
        ParentSlot.Claim claim = ParentSlot.claim(c, parent, callClass, PARENT_BUSY);
        if (claim.slot() == null) {
            return Optional.of(new Result(Optional.empty(), claim.notNow(), false, null, null, false));
        }
        Optional<Result> result = take(c, limit, parent, callClass, program, owner, lease, key);
        if (result.isPresent() && result.get().grant().isPresent() && !result.get().repeated()) {
            claim.slot().took(c, result.get().grant().get());
        }
        return result;
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

    private static Optional<Result> take(Connection c, String sql, String limit, String parent, CallClass callClass,
                                         String program, String owner, Duration lease, String key)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, owner);
            ps.setString(2, key);
            ps.setString(3, limit);
            ps.setString(4, parent);
            ps.setInt(5, callClass.rank());
            ps.setInt(6, callClass.rank());
            ps.setInt(7, callClass.rank());
            ps.setString(8, program);
            ps.setString(9, owner);
            ps.setLong(10, lease.toMillis());
            ps.setLong(11, lease.toMillis());
            ps.setString(12, key);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next(); // always one row
                long priorId = rs.getLong("prior_id");
                if (!rs.wasNull()) {
                    Instant grantedAt = Times.get(rs, "prior_granted_at");
                    String priorLimit = rs.getString("prior_limit");
                    if (grantedAt == null || !priorLimit.equals(limit)) {
                        throw new SubmissionKeyReused(key, priorLimit);
                    }
                    return Optional.of(new Result(Optional.of(new Grant(priorId, limit,
                            CallClass.ofRank(rs.getInt("prior_class")), owner, Times.get(rs, "prior_enqueued_at"),
                            grantedAt, false)), Duration.ZERO, false, null, null, true));
                }
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
                            Times.get(rs, "enqueued_at"), Times.get(rs, "granted_at"), false)), Duration.ZERO, false,
                            now, due, false));
                }
                // not now: the slot is due later, or the calls ahead take the next ones (a gap each, at least)
                Duration untilDue = due.isAfter(now) ? Duration.between(now, due) : Duration.ZERO;
                Duration retryAfter = untilDue.plus(gap.multipliedBy(ahead));
                return Optional.of(new Result(Optional.empty(), retryAfter, rs.getBoolean("stale"), now, due, false));
            }
        }
    }
}
