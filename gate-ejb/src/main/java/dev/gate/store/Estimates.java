package dev.gate.store;

import dev.gate.domain.Estimate;
import dev.gate.rules.Cost;
import dev.gate.rules.LimitRules;
import dev.gate.rules.Pace;
import dev.gate.rules.VendorCount;
import dev.gate.rules.WaitEstimate;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Position and estimated grant time of a waiting call, from the line (index range) and the limit's pace. Both err
 * early: the calls counted ahead are those certain to go before it in the order the grant pass keeps, so a deadline
 * is refused only when the rules could not grant the call in time (a call ahead that the pass would pass over, or
 * that the limit's order lets this one overtake, is not counted).
 */
public final class Estimates {

    /** A waiting call {@code w}'s concurrency key is held: a call of its limit and key is granted, its lease running. */
    private static String keyHeld(String w) {
        return " " + """
                EXISTS (SELECT 1 FROM gate_call g WHERE g.limit_name = %1$s.limit_name
                                                    AND g.concurrency_key = %1$s.concurrency_key
                                                    AND g.state = 'GRANTED' AND g.lease_expires_at > t.now)"""
                .formatted(w);
    }

    // The clock read once (t), and the gate instances that own waiting calls and are dead (their lock is gone): the
    // owners of waiting calls by a loose scan of the owner index, one probe each. A WITH RECURSIVE's entries.
    private static final String DEAD_OWNERS = """
            t AS (SELECT clock_timestamp() AS now),
            owners (owner) AS (
                SELECT min(owner) FROM gate_call WHERE state = 'WAITING'
                UNION ALL
                SELECT (SELECT min(c.owner) FROM gate_call c WHERE c.state = 'WAITING' AND c.owner > o.owner)
                FROM owners o WHERE o.owner IS NOT NULL),
            dead AS (SELECT w.owner FROM owners w WHERE w.owner IS NOT NULL AND NOT """
            + InstanceLock.OWNER_ALIVE + ")";

    // Calls ahead in line order, and the limit's pace: a position and a grant time in one trip (and, for a limit on
    // the vendor's calendar, one index lookup per such rule: the first unit of its current block). The live calls ahead
    // are every waiting call ahead (an index-only count on the line index: no table row is read) less those whose
    // lease has lapsed and that wait to be cleared (a few at most, found by the lease index; fenced by OFFSET 0 so
    // that the planner cannot walk the line instead and read each row's lease). Counting the live ones directly
    // reads every row ahead for its lease: 100,000 table reads for the last call of a long line. One "now" for
    // both counts and the estimate (a volatile clock_timestamp() per row could not bound an index range).
    // Nor do the calls of a dead gate instance count (the grant pass passes them over until their leases run out):
    // the owners of waiting calls, one index probe each on the owner index (a loose scan: a few instances and
    // programs, not a row per call), those whose instance lock is free, and their calls ahead by the same index.
    // Nor a call whose concurrency key another call holds granted: the pass goes around it (found from the keys held,
    // gate_call_key_granted, and their waiting calls, gate_call_key_waiting: no walk of the line).
    // This is the strict order's count; where the limit's programs take turns or the starvation guard lifts calls,
    // ORDERED_AHEAD counts again by that order.
    static final String ESTIMATE = """
            WITH RECURSIVE me AS (SELECT limit_name, call_class, enqueued_at, id, cost FROM gate_call
                                  WHERE id = ? AND state = 'WAITING'),
            """ + DEAD_OWNERS + """
            SELECT (SELECT count(*) FROM gate_call c
                    WHERE c.limit_name = me.limit_name AND c.state = 'WAITING'
                      AND (c.call_class, c.enqueued_at, c.id) < (me.call_class, me.enqueued_at, me.id))
                 - (SELECT count(*) FROM (SELECT limit_name, call_class, enqueued_at, id FROM gate_call
                                          WHERE state = 'WAITING' AND lease_expires_at <= t.now OFFSET 0) lapsed
                    WHERE lapsed.limit_name = me.limit_name
                      AND (lapsed.call_class, lapsed.enqueued_at, lapsed.id) < (me.call_class, me.enqueued_at, me.id))
                 - (SELECT count(*) FROM gate_call d
                    WHERE d.owner IN (SELECT owner FROM dead) AND d.state = 'WAITING' AND d.lease_expires_at > t.now
                      AND d.limit_name = me.limit_name
                      AND (d.call_class, d.enqueued_at, d.id) < (me.call_class, me.enqueued_at, me.id))
                 - (SELECT count(*) FROM gate_call k
                    WHERE k.limit_name = me.limit_name AND k.state = 'WAITING' AND k.concurrency_key IS NOT NULL
                      AND k.lease_expires_at > t.now AND k.owner NOT IN (SELECT owner FROM dead)
                      AND (k.call_class, k.enqueued_at, k.id) < (me.call_class, me.enqueued_at, me.id)
                      AND """ + keyHeld("k") + """
            ) AS ahead,
                   (SELECT coalesce(sum(c.cost - 1), 0) FROM gate_call c
                    WHERE c.limit_name = me.limit_name AND c.state = 'WAITING' AND c.cost > 1
                      AND c.lease_expires_at > t.now AND c.owner NOT IN (SELECT owner FROM dead)
                      AND NOT (c.concurrency_key IS NOT NULL AND """ + keyHeld("c") + """
            )
                      AND (c.call_class, c.enqueued_at, c.id) < (me.call_class, me.enqueued_at, me.id)) AS more_units,
                   l.fair_programs, l.aging_after_ms IS NOT NULL AS aging,
                   me.limit_name, me.cost, s.send_seq, s.vendor_after_unit, s.vendor_remaining, s.vendor_reset_at,
                   s.next_slot_at, (SELECT g.sent_at FROM gate_send g
                                    WHERE g.limit_name = s.limit_name AND g.seq = s.send_seq) AS last_sent,
                   s.paused_until, l.calls, l.window_ms, l.min_interval_ms, l.receipt_margin_ms, l.burst,
                   l.adaptive, s.adaptive_calls, s.adaptive_cut_at,
                   ARRAY(SELECT r.calls FROM gate_limit_rule r WHERE r.limit_name = l.name ORDER BY r.window_ms)
                       AS rule_calls,
                   ARRAY(SELECT r.window_ms FROM gate_limit_rule r WHERE r.limit_name = l.name ORDER BY r.window_ms)
                       AS rule_windows,
                   l.aligned_zone, l.aligned_at::text,
                   ARRAY(SELECT r.aligned_zone FROM gate_limit_rule r WHERE r.limit_name = l.name ORDER BY r.window_ms)
                       AS rule_zones,
                   ARRAY(SELECT r.aligned_at::text FROM gate_limit_rule r WHERE r.limit_name = l.name
                         ORDER BY r.window_ms) AS rule_ats,
                   t.now AS now, ps.next_slot_at AS parent_next_slot_at, ps.paused_until AS parent_paused_until
            FROM me CROSS JOIN t JOIN gate_slot s ON s.limit_name = me.limit_name
                 JOIN gate_limit l ON l.name = me.limit_name
                 LEFT JOIN gate_slot ps ON ps.limit_name = l.parent_name""";

    // Where programs take turns, or the starvation guard lifts calls, the calls certain to go first are fewer than the
    // line's order says: of the call's own class, only its own program's earlier calls (the turns may serve its
    // program next; every higher class still goes first); with the guard, a call of a class at or above the one the
    // guard may lift this call to, or an earlier call of this call's class or higher (lifted, it is still behind
    // those). Every waiting call ahead is read: such lines are a program's or a guard's, not a hundred thousand.
    // Parameters: the call. Dead owners, lapsed leases and held keys as in ESTIMATE.
    private static final String ORDERED_AHEAD = """
            WITH RECURSIVE me AS (SELECT limit_name, call_class, enqueued_at, id, program FROM gate_call
                                  WHERE id = ? AND state = 'WAITING'),
            """ + DEAD_OWNERS + """
            SELECT count(*) AS ahead, coalesce(sum(c.cost - 1), 0) AS more_units
            FROM me JOIN gate_limit l ON l.name = me.limit_name CROSS JOIN t
                 JOIN gate_call c ON c.limit_name = me.limit_name AND c.state = 'WAITING'
            WHERE c.lease_expires_at > t.now AND c.owner NOT IN (SELECT owner FROM dead)
              AND (c.call_class, c.enqueued_at, c.id) < (me.call_class, me.enqueued_at, me.id)
              AND (NOT l.fair_programs OR c.call_class < me.call_class OR c.program = me.program)
              AND (l.aging_after_ms IS NULL OR c.call_class < least(me.call_class, l.aging_up_to)
                   OR (c.enqueued_at, c.id) < (me.enqueued_at, me.id))
              AND NOT (c.concurrency_key IS NOT NULL AND """ + keyHeld("c") + """
            )""";

    private final Tx tx;

    public Estimates(Tx tx) {
        this.tx = tx;
    }

    /** Empty when the call is not waiting. */
    public Optional<Estimate> of(long callId) throws StoreUnavailable {
        return tx.run(c -> of(c, callId));
    }

    static Optional<Estimate> of(Connection c, long callId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(ESTIMATE)) {
            ps.setLong(1, callId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                LimitRules rules = SlotLock.rules(rs);
                long ahead = rs.getLong("ahead");
                long moreUnits = rs.getLong("more_units");
                if (rs.getBoolean("fair_programs") || rs.getBoolean("aging")) {
                    try (PreparedStatement ordered = c.prepareStatement(ORDERED_AHEAD)) {
                        ordered.setLong(1, callId);
                        try (ResultSet o = ordered.executeQuery()) {
                            o.next();
                            ahead = o.getLong("ahead");
                            moreUnits = o.getLong("more_units");
                        }
                    }
                }
                long unitsAhead = ahead + moreUnits; // a costly call ahead takes a gap per unit
                Instant now = Times.get(rs, "now");
                // a key under a parent sends only on a slot of the parent's too: not before the parent's next one,
                // nor before a pause of the parent's ends (the vendor's slow-down pauses the whole source); the key's
                // own beat, its burst included, runs from its own slot (random histories, seed 105153: the parent's
                // slot taken as the key's took away the key's burst, and put the estimate a key's gap late)
                Instant nextSlot = Times.get(rs, "next_slot_at");
                Instant notBefore = later(later(Times.get(rs, "paused_until"), Times.get(rs, "parent_paused_until")),
                        Times.get(rs, "parent_next_slot_at"));
                long sent = rs.getLong("send_seq");
                VendorCount count = SlotLock.vendor(rs);
                Cost cost = Cost.of(rs.getInt("cost"));
                List<WaitEstimate.BlockUse> blocks = blockUses(c, rs.getString("limit_name"), rules, sent, now);
                Optional<Instant> lastSend = Optional.ofNullable(Times.get(rs, "last_sent"));
                return Optional.of(new Estimate(ahead, WaitEstimate.grantAt(now, nextSlot, lastSend, notBefore,
                        unitsAhead, cost, rules, count, sent, blocks), now));
            }
        }
    }

    // The first unit of a block: its number and the limit's last number say what the block holds (units are numbered
    // in grant order, and the grant's time is the send's).
    private static final String FIRST_UNIT_SINCE = """
            SELECT seq FROM gate_send WHERE limit_name = ? AND sent_at >= ? ORDER BY sent_at, seq LIMIT 1""";

    /** Each aligned rule with what its current block holds. */
    private static List<WaitEstimate.BlockUse> blockUses(Connection c, String limit, LimitRules rules, long sent,
                                                         Instant now) throws SQLException {
        List<WaitEstimate.BlockUse> uses = new java.util.ArrayList<>();
        for (Pace rule : rules.rules()) {
            if (!rule.isAligned()) {
                continue;
            }
            try (PreparedStatement ps = c.prepareStatement(FIRST_UNIT_SINCE)) {
                ps.setString(1, limit);
                Times.set(ps, 2, rule.blocks().at(now).start());
                try (ResultSet rs = ps.executeQuery()) {
                    uses.add(new WaitEstimate.BlockUse(rule, rs.next() ? Math.max(0, sent - rs.getLong(1) + 1) : 0));
                }
            }
        }
        return uses;
    }

    private static Instant later(Instant a, Instant b) {
        return a == null ? b : b == null || a.isAfter(b) ? a : b;
    }
}
