package dev.gate.store;

import dev.gate.rules.LineSize;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * Room in a limit's line: the calls its caps count (the line's, and one program's share of it: {@link LineSize}),
 * why a join found no room and when a place may free, and how often a full line refused a join.
 */
public final class LineRoom {

    // The calls waiting in a limit's (l's) line, counted by the line's index up to its cap, and one program's (the
    // program index, one range per class); a call whose lease ran out does not count (a dead program's calls, not
    // swept yet, must not lock the living out), nor one whose gate instance died (the grant pass passes it over; its
    // lease may run minutes). The owner is asked only when the count reaches the cap: a join on a line with room
    // pays nothing for it. The program's count takes its parameter: the program.
    // The joins' statements (Joins, GroupJoins) count the line with these same fragments, so they are not private.
    static final String WAITING_IN_LINE = """
            (SELECT CASE WHEN a.n < l.max_waiting THEN a.n
                         ELSE (SELECT count(*) FROM (SELECT 1 FROM gate_call w
                                                     WHERE w.limit_name = l.name AND w.state = 'WAITING'
                                                       AND w.lease_expires_at > clock_timestamp()
                                                       AND """ + InstanceLock.OWNER_ALIVE + """
                                                     LIMIT l.max_waiting) live) END
             FROM (SELECT count(*) AS n FROM (SELECT 1 FROM gate_call w
                                              WHERE w.limit_name = l.name AND w.state = 'WAITING'
                                                AND w.lease_expires_at > clock_timestamp() LIMIT l.max_waiting) c) a)""";
    static final String PROGRAM_WAITING = """
            (SELECT CASE WHEN p.n < coalesce(l.max_waiting_per_program, l.max_waiting) THEN p.n
                         ELSE (SELECT count(*) FROM (SELECT 1 FROM gate_call w
                                                     WHERE w.limit_name = l.name AND w.call_class IN (0, 1, 2, 3, 4)
                                                       AND w.program = p.program AND w.state = 'WAITING'
                                                       AND w.lease_expires_at > clock_timestamp()
                                                       AND """ + InstanceLock.OWNER_ALIVE + """
                                                     LIMIT coalesce(l.max_waiting_per_program, l.max_waiting)) live)
                    END
             FROM (SELECT pr.program,
                          (SELECT count(*) FROM (SELECT 1 FROM gate_call w
                                                 WHERE w.limit_name = l.name AND w.call_class IN (0, 1, 2, 3, 4)
                                                   AND w.program = pr.program AND w.state = 'WAITING'
                                                   AND w.lease_expires_at > clock_timestamp()
                                                 LIMIT coalesce(l.max_waiting_per_program, l.max_waiting)) c) AS n
                   FROM (SELECT ?::varchar AS program) pr) p)""";

    // Why a join inserted nothing on an existing limit: its line (or the program's share of it) is full, and when
    // the next place may free (the next slot, or the cool-down's end).
    private static final String ROOM = """
            SELECT %s AS waiting, %s AS mine, l.max_waiting, l.max_waiting_per_program, l.max_keys,
                   ceil(extract(epoch FROM greatest(s.next_slot_at, s.paused_until, clock_timestamp())
                                             - clock_timestamp()) * 1000)::bigint AS until_next_ms
            FROM gate_limit l JOIN gate_slot s ON s.limit_name = l.name WHERE l.name = ?"""
            .formatted(WAITING_IN_LINE, PROGRAM_WAITING);

    // A refusal for a full line, counted per limit (a key's under its template); answers the count and whether the
    // refusal before this one is older than the log's span (on the database's clock), so the operators' log gets one
    // line when a line fills, not one per refused join. Parameters: limit, limit, the span in ms.
    private static final String COUNT_FULL = """
            WITH before AS (SELECT last_at FROM gate_line_full WHERE limit_name = ?)
            INSERT INTO gate_line_full (limit_name, refused, last_at) VALUES (?, 1, clock_timestamp())
            ON CONFLICT (limit_name) DO UPDATE SET refused = gate_line_full.refused + 1, last_at = excluded.last_at
            RETURNING refused, coalesce((SELECT last_at FROM before) < clock_timestamp() - ? * interval '1 millisecond',
                                        true) AS to_log""";

    /** How often a limit's line was found full, and whether this refusal is the first in the log's span. */
    public record FullCount(long refused, boolean toLog) {
    }

    private final Tx tx;

    public LineRoom(Tx tx) {
        this.tx = tx;
    }

    /**
     * Counts a join refused by a full line of {@code limit} (a keyed limit's name for its keys' lines); {@code span}:
     * refusals after a logged one within it are counted, not logged.
     */
    public FullCount countFull(String limit, Duration span) throws StoreUnavailable {
        return tx.runAlone(c -> {
            try (PreparedStatement ps = c.prepareStatement(COUNT_FULL)) {
                ps.setString(1, limit);
                ps.setString(2, limit);
                ps.setLong(3, span.toMillis());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return new FullCount(rs.getLong("refused"), rs.getBoolean("to_log"));
                }
            }
        });
    }

    /** The line met a cap: it or the program's share of it is full; {@code retryAfter}: when a place may free. */
    public static final class LineFull extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient LineSize.Cap cap;
        private final transient Duration retryAfter;

        LineFull(LineSize.Cap cap, Duration retryAfter) {
            super(cap.why(), null, false, false);
            this.cap = cap;
            this.retryAfter = retryAfter;
        }

        public LineSize.Cap cap() {
            return cap;
        }

        public Duration retryAfter() {
            return retryAfter;
        }
    }

    /** Why a join inserted nothing on an existing limit: the cap its line met; empty when it has room after all. */
    static Optional<LineFull> full(java.sql.Connection c, String limit, String program) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(ROOM)) {
            ps.setString(1, program);
            ps.setString(2, limit);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                int perProgram = rs.getInt("max_waiting_per_program");
                Integer declared = rs.wasNull() ? null : perProgram;
                LineSize size = new LineSize(rs.getInt("max_waiting"), declared, rs.getInt("max_keys"));
                LineSize.Cap cap = size.capMet(rs.getLong("waiting"), rs.getLong("mine"));
                if (cap == null) {
                    return Optional.empty();
                }
                return Optional.of(new LineFull(cap, Duration.ofMillis(Math.max(0, rs.getLong("until_next_ms")))));
            }
        }
    }
}
