package dev.gate.store;

import dev.gate.domain.Grant;
import dev.gate.rules.Aging;
import dev.gate.rules.Cost;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * One grant where the order is more than class and arrival: the starvation guard's ranking ({@link #AGING}) or
 * programs taking turns ({@link #FAIR}) choose the head, which is granted in the same statement.
 */
final class ChosenHead {

    private ChosenHead() {
    }

    // With the starvation guard: each class's own head (its oldest grantable call, one index lookup per class), each
    // ranked as the guard's class once it has waited long enough (Aging); the best rank goes, then the earliest
    // arrival. Inside a class arrival still decides, so a class's oldest call is the one the guard lifts first.
    // Parameters: now, after (ms), upTo, upTo, then GrantWrites.GRANTABLE's, then GrantWrites.CHOSEN's.
    static final String AGING_CHOICE = """
            WITH ranked AS (
                SELECT h.id, h.enqueued_at, h.call_class,
                       CASE WHEN h.enqueued_at < ?::timestamptz - ? * interval '1 millisecond' AND h.call_class > ?
                            THEN ? ELSE h.call_class END AS rank
                FROM generate_series(0, 4) AS k(cls)
                CROSS JOIN LATERAL (
                    SELECT id, call_class, enqueued_at FROM gate_call w
                    WHERE call_class = k.cls AND """ + GrantWrites.GRANTABLE + """
                    ORDER BY enqueued_at, id
                    LIMIT 1) h),
            chosen AS (SELECT id, rank < call_class AS aged FROM ranked ORDER BY rank, enqueued_at, id LIMIT 1)""";

    // A head of cost 1 is granted in the statement that chooses it; a costlier one is left (nothing granted): the pass
    // then chooses it (CHOOSE), probes the send log for its units and grants it (GRANT).
    static final String AGING = AGING_CHOICE + """
            ,
            head AS (
                SELECT c.id, chosen.aged FROM gate_call c JOIN chosen ON c.id = chosen.id
                WHERE c.state = 'WAITING' AND c.cost = 1
                FOR UPDATE OF c),
            """ + GrantWrites.CHOSEN;

    // With programs taking turns: in the highest class with a grantable call, the programs with calls waiting in it (a
    // loose scan of gate_call_program_line: one lookup per program, however many calls each has), each program's
    // oldest grantable call, and the program served longest ago in that class goes first (never served: first of
    // all); inside a program, first come first served. The grant records the program's turn (gate_program_turn).
    // Parameters: GrantWrites.GRANTABLE's, limit, limit, GrantWrites.GRANTABLE's, limit, then GrantWrites.CHOSEN's.
    static final String FAIR_CHOICE = """
            WITH RECURSIVE cls AS (
                SELECT k.cls FROM generate_series(0, 4) AS k(cls)
                WHERE EXISTS (SELECT 1 FROM gate_call w WHERE call_class = k.cls AND """ + GrantWrites.GRANTABLE + """
            )
                ORDER BY k.cls
                LIMIT 1),
            progs AS (
                (SELECT w.program FROM gate_call w, cls
                 WHERE w.limit_name = ? AND w.state = 'WAITING' AND w.call_class = cls.cls
                 ORDER BY w.program LIMIT 1)
                UNION ALL
                SELECT (SELECT w.program FROM gate_call w, cls
                        WHERE w.limit_name = ? AND w.state = 'WAITING' AND w.call_class = cls.cls
                          AND w.program > p.program
                        ORDER BY w.program LIMIT 1)
                FROM progs p WHERE p.program IS NOT NULL),
            candidates AS (
                SELECT h.id, h.enqueued_at, turn.served_at
                FROM progs p CROSS JOIN cls
                CROSS JOIN LATERAL (
                    SELECT id, enqueued_at FROM gate_call w
                    WHERE w.program = p.program AND call_class = cls.cls AND """ + GrantWrites.GRANTABLE + """
                    ORDER BY enqueued_at, id
                    LIMIT 1) h
                LEFT JOIN gate_program_turn turn
                       ON turn.limit_name = ? AND turn.call_class = cls.cls AND turn.program = p.program
                WHERE p.program IS NOT NULL),
            chosen AS (SELECT id, false AS aged FROM candidates ORDER BY served_at NULLS FIRST, enqueued_at, id LIMIT 1)""";

    private static final String TURN = """
            ,
            turn AS (
                INSERT INTO gate_program_turn (limit_name, call_class, program, served_at)
                SELECT limit_name, call_class, program, granted_at FROM granted
                ON CONFLICT (limit_name, call_class, program) DO UPDATE SET served_at = excluded.served_at)
            """;

    static final String FAIR = FAIR_CHOICE + """
            ,
            head AS (
                SELECT c.id, chosen.aged FROM gate_call c JOIN chosen ON c.id = chosen.id
                WHERE c.state = 'WAITING' AND c.cost = 1
                FOR UPDATE OF c),
            """ + GrantWrites.WRITES + TURN + GrantWrites.ANSWER;

    // The strict order's head (a run grants calls of cost 1; a costlier head is chosen here). Parameters:
    // GrantWrites.GRANTABLE's.
    private static final String STRICT_CHOICE = """
            WITH chosen AS (
                SELECT id, false AS aged FROM gate_call w
                WHERE """ + GrantWrites.GRANTABLE + """
                ORDER BY call_class, enqueued_at, id
                LIMIT 1)""";

    // The head as its order chooses it, locked, with its cost: the pass probes the send log for its units before it
    // grants it (GRANT).
    private static final String CHOSEN_ROW = """

            SELECT c.id, c.cost, chosen.aged FROM gate_call c JOIN chosen ON c.id = chosen.id
            WHERE c.state = 'WAITING'
            FOR UPDATE OF c""";

    // The chosen head granted. Parameters: aged, id, then GrantWrites.CHOSEN's.
    private static final String GRANT = """
            WITH head AS (
                SELECT c.id, ?::boolean AS aged FROM gate_call c WHERE c.id = ? AND c.state = 'WAITING'),
            """ + GrantWrites.WRITES;

    /** A granted head of the line, whether other calls still wait behind it, and the limit's next slot. */
    record Head(Grant grant, boolean moreWaiting, Instant nextSlot) {
    }

    /** The head its order chose, locked, not yet granted: its cost decides when it fits. */
    record Choice(long id, Cost cost, boolean aged) {
    }

    /** The head of the line by {@code order}, locked; empty when nobody is grantable. */
    static Optional<Choice> choose(Connection c, String limit, SlotLock.LineOrder order, Instant now)
            throws SQLException {
        String sql = (order.fairPrograms() ? FAIR_CHOICE : order.aging() != null ? AGING_CHOICE : STRICT_CHOICE)
                + CHOSEN_ROW;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bindChoice(ps, limit, order, now);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Choice(rs.getLong("id"), Cost.of(rs.getInt("cost")), rs.getBoolean("aged")));
            }
        }
    }

    /**
     * Grants the chosen head at {@code slot} as sends {@code seq} on (one per unit of its cost); the beat moves to
     * {@code next}, or, when {@code restart} is given, to that long after the send (never before {@code next}).
     */
    static Optional<Head> grant(Connection c, String limit, SlotLock.LineOrder order, Choice choice, Instant slot,
                                long seq, Instant next, Duration restart) throws SQLException {
        String sql = GRANT + (order.fairPrograms() ? TURN : "\n") + GrantWrites.ANSWER;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int p = 1;
            ps.setBoolean(p++, choice.aged());
            ps.setLong(p++, choice.id());
            bindWrites(ps, p, limit, slot, seq, next, restart);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Head(GrantWrites.granted(rs, limit), rs.getBoolean("more_waiting"),
                        Times.get(rs, "next_slot")));
            }
        }
    }

    private static int bindChoice(PreparedStatement ps, String limit, SlotLock.LineOrder order, Instant now)
            throws SQLException {
        int p = 1;
        Aging aging = order.aging();
        if (order.fairPrograms()) {
            p = GrantWrites.bind(ps, p, limit, now);
            ps.setString(p++, limit);
            ps.setString(p++, limit);
            p = GrantWrites.bind(ps, p, limit, now);
            ps.setString(p++, limit);
        } else {
            if (aging != null) {
                Times.set(ps, p++, now);
                ps.setLong(p++, aging.after().toMillis());
                ps.setInt(p++, aging.upToRank());
                ps.setInt(p++, aging.upToRank());
            }
            p = GrantWrites.bind(ps, p, limit, now);
        }
        return p;
    }

    private static void bindWrites(PreparedStatement ps, int p, String limit, Instant slot, long seq, Instant next,
                                   Duration restart) throws SQLException {
        Times.set(ps, p++, slot);
        ps.setLong(p++, seq);
        Times.set(ps, p++, next);
        if (restart == null) {
            ps.setNull(p++, java.sql.Types.BIGINT);
        } else {
            ps.setLong(p++, restart.toNanos() / 1_000);
        }
        ps.setLong(p++, seq);
        ps.setString(p, limit);
    }

    /**
     * Grants the head at {@code slot} as send {@code seq}; if one is granted the beat moves to {@code next}, or, when
     * {@code restart} is given, to that long after the send (never before {@code next}).
     */
    static Optional<Head> grant(Connection c, String limit, SlotLock.LineOrder order, Instant now, Instant slot,
                                            long seq, Instant next, Duration restart) throws SQLException {
        String sql = order.fairPrograms() ? FAIR : AGING; // the strict order grants runs
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bindWrites(ps, bindChoice(ps, limit, order, now), limit, slot, seq, next, restart);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Head(GrantWrites.granted(rs, limit), rs.getBoolean("more_waiting"),
                        Times.get(rs, "next_slot")));
            }
        }
    }
}
