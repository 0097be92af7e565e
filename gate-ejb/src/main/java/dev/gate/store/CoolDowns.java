package dev.gate.store;

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
 * A limit's cool-down as an outcome moves it: read from the slot row (unlocked first, then under the slot lock when
 * it changes), its next step on the limit's ladder, and the move written with who slowed the limit (the status page,
 * the action log).
 */
final class CoolDowns {

    private static final Logger LOG = Logger.getLogger(CoolDowns.class.getName());

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

    private CoolDowns() {
    }

    /** The slot's cool-down as read, and the ladder of its limit (and, read by the call, its limit's parent). */
    record Seen(String limit, CoolDown before, CoolDownLadder ladder, Instant now, boolean freesKey,
                String parent, String program) {

        /** The cool-down after this outcome; null when it does not change. */
        CoolDown next(boolean signal, Integer retryAfterSeconds) {
            CoolDown after = signal
                    ? ladder.signalled(before, Optional.ofNullable(retryAfterSeconds).map(Duration::ofSeconds), now)
                    : ladder.succeeded(before);
            return after.equals(before) ? null : after;
        }
    }

    /** The outcome that moved a cool-down: its call, the call's program, and what the vendor answered. */
    record Signal(long call, String program, int status, Integer retryAfterSeconds) {
    }

    /** The cool-down of the call's limit, read without a lock; empty when the call is not granted (any more). */
    static Optional<Seen> ofCall(Connection c, long callId, Outcomes.Whose owner) throws SQLException {
        return read(c, COOLDOWN, callId, owner, null);
    }

    /** The cool-down of a key's parent limit, read without a lock; empty when there is no such limit. */
    static Optional<Seen> ofParent(Connection c, String parent) throws SQLException {
        return read(c, PARENT_COOLDOWN, 0, null, parent);
    }

    /** The limit's cool-down read under its slot lock (slot row before call row); empty when there is no such limit. */
    static Optional<Seen> locked(Connection c, String limit) throws SQLException {
        return read(c, LOCK_COOLDOWN, 0, null, limit);
    }

    /**
     * The limit's cool-down (its slot locked, as {@code locked} read it) after this outcome, the pause running from
     * the outcome's own time; a rate-limit signal also cuts an adaptive rate.
     */
    static void coolDown(Connection c, String limit, Seen locked, Instant doneAt, Signal by, boolean signal)
            throws SQLException {
        long callId = by.call();
        int status = by.status();
        Seen at = new Seen(limit, locked.before(), locked.ladder(), doneAt, false, null, null);
        CoolDown after = at.next(signal, by.retryAfterSeconds());
        if (after != null) {
            move(c, limit, by, at, after, signal);
        }
        if (signal) {
            AdaptiveCuts.adapt(c, limit, callId, status, doneAt);
        }
    }

    private static Optional<Seen> read(Connection c, String sql, long callId, Outcomes.Whose owner,
                                       String lockedLimit) throws SQLException {
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
}
