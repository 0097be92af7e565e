package dev.gate.store;

import dev.gate.rules.AdaptiveRate;
import dev.gate.rules.CoolDown;
import dev.gate.rules.CoolDownLadder;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * How the vendor answered a granted call, in one transaction: the call becomes DONE with its outcome, and the
 * limit's cool-down moves: a rate-limit signal pauses the whole limit and climbs the ladder; a success counts
 * toward stepping it down. The common case (a success on a limit not cooling down) is one statement.
 */
public final class Outcomes {

    private static final Logger LOG = Logger.getLogger(Outcomes.class.getName());

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

    // Read without a lock first: most outcomes (a success with no cool-down running) change nothing on the slot row,
    // so they never queue behind a grant pass.
    private static final String COOLDOWN = """
            SELECT c.limit_name, s.paused_until, s.cooldown_step, s.success_run, l.retry_floor_ms,
                   l.cooldown_ladder_ms, l.step_down_after, l.max_cooldown_ms, clock_timestamp() AS now, c.program,
                   c.concurrency_key IS NOT NULL AND c.state = 'GRANTED' AS frees_key, l.parent_name
            FROM gate_call c JOIN gate_slot s ON s.limit_name = c.limit_name JOIN gate_limit l ON l.name = c.limit_name
            WHERE c.id = ? AND c.state IN ('GRANTED', 'ABANDONED')
              AND (?::varchar IS NULL OR c.owner = ?) AND (?::varchar IS NULL OR c.program = ?)""";

    // The slot row is locked before the call row (the one lock order: slot row, then call rows; a key's slot before
    // its parent's).
    private static final String PARENT_COOLDOWN = """
            SELECT NULL AS limit_name, s.paused_until, s.cooldown_step, s.success_run, l.retry_floor_ms,
                   l.cooldown_ladder_ms, l.step_down_after, l.max_cooldown_ms, clock_timestamp() AS now,
                   NULL AS program, NULL AS parent_name
            FROM gate_slot s JOIN gate_limit l ON l.name = s.limit_name
            WHERE s.limit_name = ?""";

    private static final String LOCK_COOLDOWN = PARENT_COOLDOWN + "\nFOR UPDATE OF s";

    // The ladder's new step, under the slot lock taken by LOCK_COOLDOWN (slot row before call row).
    // A signal also records when it came and which status it was (the status page: "after a 429 at 10:02").
    private static final String MOVE_COOLDOWN = """
            UPDATE gate_slot SET paused_until = ?, cooldown_step = ?, success_run = ?,
                                 slowed_at = CASE WHEN ? THEN ? ELSE slowed_at END,
                                 slowed_by = CASE WHEN ? THEN ? ELSE slowed_by END,
                                 slowed_program = CASE WHEN ? THEN ? ELSE slowed_program END,
                                 slowed_call = CASE WHEN ? THEN ? ELSE slowed_call END
            WHERE limit_name = ?""";

    // An adaptive limit's rate, under the slot lock a signal takes (LOCK_COOLDOWN): read, then cut (AdaptiveRate).
    private static final String ADAPTIVE = """
            SELECT l.adaptive, l.calls, l.window_ms, s.adaptive_calls, s.adaptive_cut_at
            FROM gate_slot s JOIN gate_limit l ON l.name = s.limit_name
            WHERE s.limit_name = ?""";

    private static final String CUT = "UPDATE gate_slot SET adaptive_calls = ?, adaptive_cut_at = ? WHERE limit_name = ?";

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
        if (!CoolDownLadder.isRateLimitSignal(status, retryAfterSeconds)
                && tx.runAlone(c -> matches(c, PLAIN_DONE, callId, owner, status, retryAfterSeconds))) {
            return Result.RECORDED;
        }
        return tx.run(c -> {
            Optional<Seen> seen = read(c, COOLDOWN, callId, owner, null);
            if (seen.isEmpty()) {
                return repeated(c, callId, owner, status, retryAfterSeconds) ? Result.REPEATED : Result.NOT_GRANTED;
            }
            String limit = seen.get().limit();
            boolean signal = CoolDownLadder.isRateLimitSignal(status, retryAfterSeconds);
            Seen locked = signal || seen.get().next(signal, retryAfterSeconds) != null
                    ? read(c, LOCK_COOLDOWN, callId, owner, limit).orElseThrow() : null;
            // a key under a parent: the vendor's "slow down" pauses the parent (the whole source) as well, on the
            // parent's own ladder, and the key's successes step that ladder down as the parent's own calls do
            String parent = seen.get().parent();
            Seen parentSeen = parent == null ? null : read(c, PARENT_COOLDOWN, callId, owner, parent).orElse(null);
            Seen parentLocked = parentSeen != null && (signal || parentSeen.next(signal, retryAfterSeconds) != null)
                    ? read(c, LOCK_COOLDOWN, callId, owner, parent).orElseThrow() : null;
            // a freed concurrency key commits durably: the next call of the key must not be granted on a
            // record a crash could lose, and its grant then reads after this outcome's time, not before
            Instant doneAt = done(c, callId, owner, status, retryAfterSeconds,
                    locked == null && parentLocked == null && !seen.get().freesKey());
            if (doneAt == null) {
                throw new SQLException("call " + callId + " left GRANTED while its outcome was recorded", "40001");
            }
            Signal by = new Signal(callId, seen.get().program(), status, retryAfterSeconds);
            if (locked != null) {
                coolDown(c, limit, locked, doneAt, by, signal);
            }
            if (parentLocked != null) {
                coolDown(c, parent, parentLocked, doneAt, by, signal);
            }
            return seen.get().freesKey() ? Result.RECORDED_KEY_FREED : Result.RECORDED;
        });
    }

    /**
     * The limit's cool-down (its slot locked, as {@code locked} read it) after this outcome, the pause running from
     * the outcome's own time; a rate-limit signal also cuts an adaptive rate.
     */
    private static void coolDown(Connection c, String limit, Seen locked, Instant doneAt, Signal by, boolean signal)
            throws SQLException {
        long callId = by.call();
        int status = by.status();
        Seen at = new Seen(limit, locked.before(), locked.ladder(), doneAt, false, null, null);
        CoolDown after = at.next(signal, by.retryAfterSeconds());
        if (after != null) {
            move(c, limit, by, at, after, signal);
        }
        if (signal) {
            adapt(c, limit, callId, status, doneAt);
        }
    }

    /** The slot's cool-down as read, and the ladder of its limit (and, read by the call, its limit's parent). */
    private record Seen(String limit, CoolDown before, CoolDownLadder ladder, Instant now, boolean freesKey,
                        String parent, String program) {

        /** The cool-down after this outcome; null when it does not change. */
        CoolDown next(boolean signal, Integer retryAfterSeconds) {
            CoolDown after = signal
                    ? ladder.signalled(before, Optional.ofNullable(retryAfterSeconds).map(Duration::ofSeconds), now)
                    : ladder.succeeded(before);
            return after.equals(before) ? null : after;
        }
    }

    private static Optional<Seen> read(Connection c, String sql, long callId, Whose owner, String lockedLimit)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            if (lockedLimit != null) {
                ps.setString(1, lockedLimit);
            } else {
                ps.setLong(1, callId);
                owner.bind(ps, 2);
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                List<Duration> steps = new ArrayList<>();
                for (Long ms : (Long[]) rs.getArray("cooldown_ladder_ms").getArray()) {
                    steps.add(Duration.ofMillis(ms));
                }
                return Optional.of(new Seen(lockedLimit != null ? lockedLimit : rs.getString("limit_name"),
                        new CoolDown(rs.getInt("cooldown_step"), rs.getInt("success_run"),
                                Times.get(rs, "paused_until")),
                        new CoolDownLadder(steps, Duration.ofMillis(rs.getLong("retry_floor_ms")),
                                rs.getInt("step_down_after"), Duration.ofMillis(rs.getLong("max_cooldown_ms"))),
                        Times.get(rs, "now"), lockedLimit == null && rs.getBoolean("frees_key"),
                        rs.getString("parent_name"), rs.getString("program")));
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

    /** An adaptive limit's rate is cut by a signal (at most once a window); other limits are left as they are. */
    private static void adapt(Connection c, String limit, long callId, int status, Instant now) throws SQLException {
        int from;
        int to;
        try (PreparedStatement ps = c.prepareStatement(ADAPTIVE)) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || !rs.getBoolean("adaptive")) {
                    return;
                }
                AdaptiveRate rate = new AdaptiveRate(rs.getInt("calls"), Duration.ofMillis(rs.getLong("window_ms")));
                int cutTo = rs.getInt("adaptive_calls");
                Integer lastCut = rs.wasNull() ? null : cutTo;
                Instant cutAt = Times.get(rs, "adaptive_cut_at");
                if (!rate.mayCut(cutAt, now)) {
                    return;
                }
                from = rate.effective(lastCut, cutAt, now);
                to = rate.afterSignal(from);
            }
        }
        try (PreparedStatement ps = c.prepareStatement(CUT)) {
            ps.setInt(1, to);
            Times.set(ps, 2, now);
            ps.setString(3, limit);
            ps.executeUpdate();
        }
        LOG.info(() -> "limit " + limit + " adaptive rate cut from " + from + " to " + to + " calls per window: call "
                + callId + " was answered " + status);
    }

    /** The outcome that moved a cool-down: its call, the call's program, and what the vendor answered. */
    private record Signal(long call, String program, int status, Integer retryAfterSeconds) {
    }

    private static void move(Connection c, String limit, Signal by, Seen locked, CoolDown after, boolean signal)
            throws SQLException {
        long callId = by.call();
        int status = by.status();
        Integer retryAfterSeconds = by.retryAfterSeconds();
        try (PreparedStatement ps = c.prepareStatement(MOVE_COOLDOWN)) {
            if (after.pausedUntil() == null) {
                ps.setNull(1, java.sql.Types.TIMESTAMP_WITH_TIMEZONE);
            } else {
                Times.set(ps, 1, after.pausedUntil());
            }
            ps.setInt(2, after.step());
            ps.setInt(3, after.successRun());
            ps.setBoolean(4, signal);
            Times.set(ps, 5, locked.now());
            ps.setBoolean(6, signal);
            ps.setInt(7, status);
            ps.setBoolean(8, signal);
            ps.setString(9, by.program());
            ps.setBoolean(10, signal);
            ps.setLong(11, callId);
            ps.setString(12, limit);
            ps.executeUpdate();
        }
        if (signal) {
            Duration longest = locked.ladder().longestAsk();
            String asked = retryAfterSeconds == null ? " without Retry-After"
                    : " with Retry-After " + retryAfterSeconds + " s" + (Duration.ofSeconds(retryAfterSeconds)
                    .compareTo(longest) > 0 ? ", taken as " + longest.toSeconds() + " s (the limit's maxCoolDown)" : "");
            String detail = "call " + callId + " was answered " + status + asked + ": paused until "
                    + after.pausedUntil() + " (cool-down step " + after.step() + ")";
            // who paused every program's line, on record beside the operators' actions
            ActionLog.record(c, new ActionLog.Entry(by.program() == null ? "unknown" : by.program(), "cool-down",
                    "limit " + limit, detail));
            LOG.info(() -> "limit " + limit + " paused by " + by.program() + ": " + detail);
        } else if (after.step() < locked.before().step()) {
            LOG.info(() -> "limit " + limit + " cool-down stepped down to step " + after.step() + " after "
                    + locked.ladder().stepDownAfter() + " successes");
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
