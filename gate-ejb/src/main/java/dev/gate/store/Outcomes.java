package dev.gate.store;

import dev.gate.client.GatePausedException;
import dev.gate.line.CoolDown;
import dev.gate.line.CoolDownLadder;

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
 * toward stepping it down.
 */
public final class Outcomes {

    private static final Logger LOG = Logger.getLogger(Outcomes.class.getName());

    private static final String DONE = """
            UPDATE gate_call SET state = 'DONE', done_at = clock_timestamp(), outcome_status = ?,
                                 outcome_retry_after_s = ?
            WHERE id = ? AND state = 'GRANTED' AND (?::varchar IS NULL OR owner = ?)
            RETURNING limit_name""";

    private static final String LOCK_COOLDOWN = """
            SELECT s.paused_until, s.cooldown_step, s.success_run, l.retry_floor_ms, l.cooldown_ladder_ms,
                   l.step_down_after, clock_timestamp() AS now
            FROM gate_slot s JOIN gate_limit l ON l.name = s.limit_name
            WHERE s.limit_name = ?
            FOR UPDATE OF s""";

    private static final String MOVE_COOLDOWN = """
            UPDATE gate_slot SET paused_until = ?, cooldown_step = ?, success_run = ? WHERE limit_name = ?""";

    /** What recording did. */
    public enum Result { RECORDED, NOT_GRANTED }

    private final Tx tx;

    public Outcomes(Tx tx) {
        this.tx = tx;
    }

    /**
     * @param owner only this owner's call (a program over HTTP), or null for any (the instance's own EJB callers)
     */
    public Result record(long callId, String owner, int status, Integer retryAfterSeconds)
            throws GatePausedException {
        return tx.run(c -> {
            String limit;
            try (PreparedStatement ps = c.prepareStatement(DONE)) {
                ps.setInt(1, status);
                if (retryAfterSeconds == null) {
                    ps.setNull(2, java.sql.Types.INTEGER);
                } else {
                    ps.setInt(2, retryAfterSeconds);
                }
                ps.setLong(3, callId);
                ps.setString(4, owner);
                ps.setString(5, owner);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Result.NOT_GRANTED;
                    }
                    limit = rs.getString(1);
                }
            }
            coolDown(c, limit, callId, status, retryAfterSeconds);
            // those who wait for this outcome (joiners) hear of it at commit, on any instance
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify('" + Granter.CHANNEL + "', ?)")) {
                ps.setString(1, Long.toString(callId));
                ps.execute();
            }
            return Result.RECORDED;
        });
    }

    private static void coolDown(Connection c, String limit, long callId, int status, Integer retryAfterSeconds)
            throws SQLException {
        boolean signal = CoolDownLadder.isRateLimitSignal(status, retryAfterSeconds);
        CoolDown before;
        CoolDownLadder ladder;
        Instant now;
        try (PreparedStatement ps = c.prepareStatement(LOCK_COOLDOWN)) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return;
                }
                before = new CoolDown(rs.getInt("cooldown_step"), rs.getInt("success_run"),
                        Times.get(rs, "paused_until"));
                List<Duration> steps = new ArrayList<>();
                for (Long ms : (Long[]) rs.getArray("cooldown_ladder_ms").getArray()) {
                    steps.add(Duration.ofMillis(ms));
                }
                ladder = new CoolDownLadder(steps, Duration.ofMillis(rs.getLong("retry_floor_ms")),
                        rs.getInt("step_down_after"));
                now = Times.get(rs, "now");
            }
        }
        CoolDown after = signal
                ? ladder.signalled(before, Optional.ofNullable(retryAfterSeconds).map(Duration::ofSeconds), now)
                : ladder.succeeded(before);
        if (after.equals(before)) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(MOVE_COOLDOWN)) {
            if (after.pausedUntil() == null) {
                ps.setNull(1, java.sql.Types.TIMESTAMP_WITH_TIMEZONE);
            } else {
                Times.set(ps, 1, after.pausedUntil());
            }
            ps.setInt(2, after.step());
            ps.setInt(3, after.successRun());
            ps.setString(4, limit);
            ps.executeUpdate();
        }
        if (signal) {
            LOG.info(() -> "limit " + limit + " paused until " + after.pausedUntil() + " (cool-down step "
                    + after.step() + "): call " + callId + " was answered " + status
                    + (retryAfterSeconds == null ? " without Retry-After" : " with Retry-After " + retryAfterSeconds
                    + " s"));
        } else if (after.step() < before.step()) {
            LOG.info(() -> "limit " + limit + " cool-down stepped down to step " + after.step() + " after "
                    + ladder.stepDownAfter() + " successes");
        }
    }
}
