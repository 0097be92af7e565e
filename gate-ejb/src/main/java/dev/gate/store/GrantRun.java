package dev.gate.store;

import dev.gate.domain.Grant;
import dev.gate.rules.DueRun;
import dev.gate.rules.LimitRules;
import dev.gate.rules.Pace;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The strict order's grants (no starvation guard, no turns): the sends due now planned by {@link DueRun} on the
 * probe, then the head of the line's first calls granted, one per step, in one statement.
 */
final class GrantRun {

    private GrantRun() {
    }

    // The strict order's run (DueRun): the first k grantable calls of the line, head first, each granted at the same
    // clock read with the run's slots, one send each, numbered on; the beat moves past the last. Of calls sharing a
    // concurrency key only the first goes (the next goes around it, keeping its place, as one at a time). A run that
    // restarted the beat at its first send has its later slots counted from that send, so they move with its
    // recorded time (shift: the statement's clock read less the run's deciding moment). One notification carries
    // every id. A run is of calls of cost 1: it ends before a costlier one, which the pass grants alone (Granter), and
    // nobody behind it goes first. Parameters: GrantWrites.GRANTABLE's, k, the deciding moment, the steps' due and kept (µs), restart (µs or null)
    // and whether they move with the first send (arrays), seq, seq, limit, limit.
    static final String SQL = """
            WITH cand AS (
                SELECT id, call_class, enqueued_at, concurrency_key, cost FROM gate_call w
                WHERE """ + GrantWrites.GRANTABLE + """
                ORDER BY call_class, enqueued_at, id
                LIMIT ?
                FOR UPDATE),
            head AS (
                SELECT id, row_number() OVER (ORDER BY call_class, enqueued_at, id) AS n
                FROM (SELECT cand.*, row_number() OVER (PARTITION BY concurrency_key
                                                        ORDER BY call_class, enqueued_at, id) AS of_key
                      FROM cand) c
                WHERE (concurrency_key IS NULL OR of_key = 1)
                  AND NOT EXISTS (SELECT 1 FROM cand x WHERE x.cost > 1 AND (x.call_class, x.enqueued_at, x.id)
                                                                            <= (c.call_class, c.enqueued_at, c.id))),
            t0 AS (SELECT clock_timestamp() AS at),
            t AS (SELECT at, greatest(at - ?::timestamptz, interval '0') AS shift FROM t0),
            step AS (
                SELECT p.n,
                       timestamptz 'epoch' + p.due_us * interval '1 microsecond'
                           + CASE WHEN p.moves THEN t.shift ELSE interval '0' END AS slot_at,
                       timestamptz 'epoch' + p.kept_us * interval '1 microsecond'
                           + CASE WHEN p.moves THEN t.shift ELSE interval '0' END AS kept,
                       t.at + p.restart_us * interval '1 microsecond' AS restarted
                FROM unnest(?::bigint[], ?::bigint[], ?::bigint[], ?::boolean[])
                         WITH ORDINALITY AS p(due_us, kept_us, restart_us, moves, n),
                     t),
            granted AS (
                UPDATE gate_call c SET state = 'GRANTED', granted_at = t.at, aged = false,
                                       lease_expires_at = t.at + c.lease_ms * interval '1 millisecond'
                FROM head, t WHERE c.id = head.id
                RETURNING c.id, c.limit_name, c.call_class, c.owner, c.program, c.enqueued_at, c.granted_at,
                          c.lease_expires_at, c.dedupe_key IS NULL AS alone, head.n),
            sent AS (
                INSERT INTO gate_send (limit_name, call_id, sent_at, slot_at, seq)
                SELECT g.limit_name, g.id, g.granted_at, step.slot_at, ? + g.n FROM granted g JOIN step ON step.n = g.n),
            nx AS (
                SELECT least(greatest(step.kept, step.restarted),
                             gate_block_turn((SELECT limit_name FROM granted LIMIT 1), (SELECT at FROM t))) AS next_slot,
                       step.n
                FROM step WHERE step.n = (SELECT max(n) FROM granted)),
            moved AS (
                UPDATE gate_slot SET next_slot_at = nx.next_slot, send_seq = ? + nx.n
                FROM nx WHERE limit_name = ?)
            SELECT id, call_class, owner, program, enqueued_at, granted_at, lease_expires_at, alone, false AS aged,
                   (SELECT next_slot FROM nx) AS next_slot,
                   (SELECT pg_notify('""" + Granter.CHANNEL + """
            ', ids) FROM (SELECT string_agg(id::text, ',') AS ids FROM granted) a WHERE ids IS NOT NULL) AS announced,
                   EXISTS (SELECT 1 FROM gate_call o WHERE o.limit_name = ? AND o.state = 'WAITING'
                                                       AND o.id NOT IN (SELECT id FROM head)) AS more_waiting
            FROM granted ORDER BY n""";

    // A run's later sends need the sends that leave each rule's window as it goes: for a rule of C calls, sends
    // seq - C + 1 on, one per step (a statement of one range lookup per rule, by send number), and the oldest unit
    // kept (rule -1): a unit sent but pruned reads as sent then, as SendProbe reads it.
    private static String probeSql(int rules) {
        StringBuilder sql = new StringBuilder(
                "(SELECT -1 AS rule, seq, sent_at FROM gate_send WHERE limit_name = ? ORDER BY seq LIMIT 1)");
        for (int i = 0; i < rules; i++) {
            sql.append("\nUNION ALL\n").append("SELECT ").append(i)
                    .append(" AS rule, seq, sent_at FROM gate_send WHERE limit_name = ? AND seq BETWEEN ? AND ?");
        }
        return sql.toString();
    }

    /**
     * The sends due now, for the strict order's run: decided on the probe; when the beat would let a second one go at
     * once (a burst allowance), on the sends that leave each window as the run goes, read in one more round trip.
     */
    static List<DueRun.Step> plan(Connection c, String limit, LimitRules rules, SendProbe probe, Instant now,
                                         Instant slot, Instant pausedUntil, long seq, int max) throws SQLException {
        List<List<Optional<Instant>>> read = new ArrayList<>();
        for (Optional<Instant> nth : probe.nthSent()) {
            read.add(List.of(nth));
        }
        List<DueRun.Step> first = DueRun.plan(rules, now, slot, read, probe.lastSent(), pausedUntil, max);
        if (max == 1 || first.size() != 1 || first.get(0).next(now).isAfter(now)) {
            return first;
        }
        read.clear();
        List<Pace> paces = rules.rules();
        try (PreparedStatement ps = c.prepareStatement(probeSql(paces.size()))) {
            int p = 1;
            ps.setString(p++, limit);
            for (Pace pace : paces) {
                int steps = Math.min(pace.calls(), max);
                read.add(new ArrayList<>(java.util.Collections.nCopies(steps, Optional.<Instant>empty())));
                ps.setString(p++, limit);
                ps.setLong(p++, seq - pace.calls() + 1);
                ps.setLong(p++, seq - pace.calls() + steps);
            }
            long oldestKept = Long.MAX_VALUE;
            Instant oldestSent = null;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int rule = rs.getInt("rule");
                    if (rule < 0) {
                        oldestKept = rs.getLong("seq");
                        oldestSent = Times.get(rs, "sent_at");
                        continue;
                    }
                    long from = seq - paces.get(rule).calls() + 1;
                    read.get(rule).set((int) (rs.getLong("seq") - from), Optional.of(Times.get(rs, "sent_at")));
                }
            }
            for (int rule = 0; rule < paces.size(); rule++) {
                long from = seq - paces.get(rule).calls() + 1;
                List<Optional<Instant>> sends = read.get(rule);
                for (int i = 0; i < sends.size(); i++) {
                    if (sends.get(i).isEmpty() && from + i >= 1 && from + i < oldestKept && oldestSent != null) {
                        sends.set(i, Optional.of(oldestSent)); // sent, pruned since: no later than the oldest kept
                    }
                }
            }
        }
        return DueRun.plan(rules, now, slot, read, probe.lastSent(), pausedUntil, max);
    }

    /** What a run's statement granted (in line order), whether calls still wait, and the limit's next slot. */
    record Ran(List<Grant> grants, boolean moreWaiting, Instant nextSlot) {
    }

    /** Grants the head of the line's first calls, one per step of {@code run}, as sends {@code seq} + 1 on. */
    static Ran grant(Connection c, String limit, Instant decidedAt, long seq, List<DueRun.Step> run)
            throws SQLException {
        Long[] due = new Long[run.size()];
        Long[] kept = new Long[run.size()];
        Long[] restart = new Long[run.size()];
        Boolean[] moves = new Boolean[run.size()];
        for (int i = 0; i < run.size(); i++) {
            DueRun.Step step = run.get(i);
            due[i] = GrantWrites.micros(step.due());
            kept[i] = GrantWrites.micros(step.kept());
            restart[i] = step.restart().map(d -> d.toNanos() / 1_000).orElse(null);
            moves[i] = step.fromFirstSend();
        }
        try (PreparedStatement ps = c.prepareStatement(SQL)) {
            int p = GrantWrites.bind(ps, 1, limit, decidedAt);
            ps.setInt(p++, run.size());
            Times.set(ps, p++, decidedAt);
            ps.setArray(p++, c.createArrayOf("bigint", due));
            ps.setArray(p++, c.createArrayOf("bigint", kept));
            ps.setArray(p++, c.createArrayOf("bigint", restart));
            ps.setArray(p++, c.createArrayOf("boolean", moves));
            ps.setLong(p++, seq);
            ps.setLong(p++, seq);
            ps.setString(p++, limit);
            ps.setString(p, limit);
            List<Grant> grants = new ArrayList<>();
            boolean more = false;
            Instant next = null;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    grants.add(GrantWrites.granted(rs, limit));
                    more = rs.getBoolean("more_waiting");
                    next = Times.get(rs, "next_slot");
                }
            }
            return new Ran(List.copyOf(grants), more, next);
        }
    }
}
