package dev.gate.store;

import dev.gate.rules.AdaptiveRate;
import dev.gate.rules.Aging;
import dev.gate.rules.CalendarBlocks;
import dev.gate.rules.VendorCount;
import dev.gate.rules.LimitRules;
import dev.gate.rules.Pace;
import dev.gate.rules.ReceiptMargin;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A limit's slot row locked for a grant pass: the per-limit mutex across every gate instance, read in one statement
 * with the limit's rules, the database's clock and the first probe of its send log.
 */
final class SlotLock {

    private SlotLock() {
    }

    // SKIP LOCKED: nobody queues on a limit's lock. If another transaction holds it, that one is granting (or moving
    // the cool-down) right now, and this pass comes back shortly instead of waiting behind it. It never waits, so the
    // clock read in the same statement is as good as one taken after the lock.
    // The first probe rides along: the last send and, per rule, the calls-th most recent send, by send number (a
    // pruned one as the oldest kept after it, as SendProbe reads it). Their
    // rows are read in this statement's snapshot, and the slot row is its newest version: if another grant committed
    // between the two, the last send is missing from the snapshot and the pass probes again (see probeSql).
    static final String SQL = """
            SELECT s.next_slot_at, s.paused_until, s.send_seq, s.vendor_after_unit, s.vendor_remaining, s.vendor_reset_at,
                   l.calls, l.window_ms, l.min_interval_ms,
                   l.receipt_margin_ms, l.aging_after_ms, l.aging_up_to, l.fair_programs, l.burst, l.adaptive,
                   s.adaptive_calls, s.adaptive_cut_at, l.parent_name, l.aligned_zone, l.aligned_at::text,
                   ARRAY(SELECT r.calls FROM gate_limit_rule r WHERE r.limit_name = l.name ORDER BY r.window_ms, r.calls)
                       AS rule_calls,
                   ARRAY(SELECT r.window_ms FROM gate_limit_rule r WHERE r.limit_name = l.name ORDER BY r.window_ms, r.calls)
                       AS rule_windows,
                   ARRAY(SELECT r.aligned_zone FROM gate_limit_rule r WHERE r.limit_name = l.name
                         ORDER BY r.window_ms, r.calls) AS rule_zones,
                   ARRAY(SELECT r.aligned_at::text FROM gate_limit_rule r WHERE r.limit_name = l.name
                         ORDER BY r.window_ms, r.calls) AS rule_ats,
                   clock_timestamp() AS now,
                   (SELECT sent_at FROM gate_send g WHERE g.limit_name = s.limit_name AND g.seq = s.send_seq)
                       AS last_sent,
                   """ + SendProbe.unitSent("s.limit_name", "(s.send_seq - l.calls + 1)") + """
             AS nth_sent,
                   ARRAY(SELECT """ + SendProbe.unitSent("r.limit_name", "(s.send_seq - r.calls + 1)") + """

                         FROM gate_limit_rule r WHERE r.limit_name = l.name ORDER BY r.window_ms, r.calls) AS rule_nth_sent
            FROM gate_slot s JOIN gate_limit l ON l.name = s.limit_name
            WHERE s.limit_name = ?
            FOR UPDATE OF s SKIP LOCKED""";

    /**
     * The limit's slot as {@link #SQL} read it, with its lock held; empty when another transaction held it.
     * Another statement may carry SQL's columns (the fast path's join): a row without them is "locked
     * elsewhere".
     */
    static Optional<Locked> locked(ResultSet rs) throws SQLException {
        long seq = rs.getLong("send_seq");
        if (rs.wasNull()) {
            return Optional.empty();
        }
        LimitRules rules = rules(rs);
        // the lock's probe read the declared calls' n-th send: for an adaptive limit cut below them, probe again
        SendProbe probe = rules.rules().get(0).calls() == rs.getInt("calls") ? SendProbe.locked(rs, seq) : null;
        return Optional.of(new Locked(Times.get(rs, "next_slot_at"), Times.get(rs, "paused_until"), vendor(rs), seq,
                rules,
                new LineOrder(aging(rs), rs.getBoolean("fair_programs")), probe, rs.getString("parent_name")));
    }

    /**
     * A locked slot: the beat, the cool-down, the vendor's last count (null: none), the latest send's number, the
     * rules; the probe when complete.
     */
    record Locked(Instant slot, Instant pausedUntil, VendorCount vendor, long seq, LimitRules rules, LineOrder order,
                  SendProbe probe, String parent) {

        /**
         * Without its probe if the probe's clock read came before {@code t} (a statement's parts run in no set
         * order): a grant is never recorded before its call joined.
         */
        Locked probedNotBefore(Instant t) {
            return probe == null || !probe.now().isBefore(t) ? this
                    : new Locked(slot, pausedUntil, vendor, seq, rules, order, null, parent);
        }

        /**
         * When a call of {@code cost} may go at {@code now} with {@code sent} units logged, beside the beat and the
         * windows: after the cool-down, and after the vendor's reset when it said fewer units were left.
         */
        Instant notBefore(long sent, dev.gate.rules.Cost cost, Instant now) {
            return held(pausedUntil, vendor, sent, cost, now);
        }
    }

    /** The limit's rules as the cap and the beat count them: each window widened by its receipt margin. */
    static LimitRules rules(ResultSet rs) throws SQLException {
        List<Pace> rules = new ArrayList<>();
        rules.add(pace(effectiveCalls(rs), rs.getLong("window_ms"), rs.getString("aligned_zone"),
                rs.getString("aligned_at")));
        Integer[] calls = (Integer[]) rs.getArray("rule_calls").getArray();
        Long[] windows = (Long[]) rs.getArray("rule_windows").getArray();
        String[] zones = (String[]) rs.getArray("rule_zones").getArray();
        String[] ats = (String[]) rs.getArray("rule_ats").getArray();
        for (int i = 0; i < calls.length; i++) {
            rules.add(pace(calls[i], windows[i], zones[i], ats[i]));
        }
        long margin = rs.getLong("receipt_margin_ms");
        return ReceiptMargin.ofNullable(rs.wasNull() ? null : Duration.ofMillis(margin))
                .widen(new LimitRules(rules, Duration.ofMillis(rs.getLong("min_interval_ms")), rs.getInt("burst")));
    }

    /** The later of a cool-down's end and a vendor's count's hold (each may be null: none). */
    static Instant held(Instant pausedUntil, VendorCount vendor, long sent, dev.gate.rules.Cost cost, Instant now) {
        Instant hold = vendor == null ? null : vendor.holdsUntil(sent, cost, now).orElse(null);
        if (hold == null) {
            return pausedUntil;
        }
        return pausedUntil == null || hold.isAfter(pausedUntil) ? hold : pausedUntil;
    }

    /** The vendor's count as the slot row holds it; null when none was reported. */
    static VendorCount vendor(ResultSet rs) throws SQLException {
        Instant reset = Times.get(rs, "vendor_reset_at");
        return reset == null ? null : new VendorCount(rs.getLong("vendor_after_unit"), rs.getInt("vendor_remaining"),
                reset);
    }

    /** A rule as its columns give it: sliding, or on the vendor's blocks when it has a zone. */
    static Pace pace(int calls, long windowMs, String zone, String at) {
        if (zone == null) {
            return Pace.of(calls, windowMs);
        }
        return Pace.aligned(calls, new CalendarBlocks(Duration.ofMillis(windowMs), ZoneId.of(zone),
                LocalTime.parse(at)));
    }

    /** The limit's order beside class and arrival: its starvation guard (null: off), programs taking turns. */
    record LineOrder(Aging aging, boolean fairPrograms) {
    }

    /** The main rule's calls in force now: the declared ones, or an adaptive limit's rate as its last cut left it. */
    static int effectiveCalls(ResultSet rs) throws SQLException {
        int declared = rs.getInt("calls");
        if (!rs.getBoolean("adaptive")) {
            return declared;
        }
        Integer cutTo = (Integer) rs.getObject("adaptive_calls");
        return new AdaptiveRate(declared, Duration.ofMillis(rs.getLong("window_ms")))
                .effective(cutTo, Times.get(rs, "adaptive_cut_at"), Times.get(rs, "now"));
    }

    /** The limit's starvation guard; null: off. */
    static Aging aging(ResultSet rs) throws SQLException {
        long after = rs.getLong("aging_after_ms");
        return rs.wasNull() ? null : new Aging(Duration.ofMillis(after), rs.getInt("aging_up_to"));
    }
}
