package dev.gate.store;

import dev.gate.rules.Cost;
import dev.gate.rules.LimitRules;
import dev.gate.rules.Pace;
import dev.gate.rules.SlotDecision;
import dev.gate.rules.SlotRule;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a grant pass reads of a limit's send log, under its slot lock, and the database's clock then: the last send
 * and, per rule, the calls-th most recent send (point lookups by send number). A unit that was sent but is no longer
 * in the log (retention pruned it, before a rule of a longer window was given) reads as sent when the oldest unit
 * still kept was: no later than that, so its window is counted full at least as long as it truly was (never room
 * the log cannot see). A unit numbered below 1 was never sent: room.
 */
record SendProbe(Instant now, Optional<Instant> lastSent, List<Optional<Instant>> nthSent) {

    /** The limit's decision as of {@code at}, on this probe's sends. */
    SlotDecision decide(LimitRules rules, Instant at, Instant slot, Instant pausedUntil) {
        return SlotRule.decide(rules, at, slot, nthSent, lastSent, pausedUntil);
    }

    /**
     * The time of unit {@code unit} (an SQL expression) of limit {@code limit}: its own, or, pruned, the oldest kept
     * unit's after it (units are numbered in send order, and retention deletes the oldest first: no later than that);
     * none below number 1 (never sent). An index range on (limit, number) that stops at its first row: as cheap as
     * the point lookup when the unit is kept.
     */
    static String unitSent(String limit, String unit) {
        return " " + """
                CASE WHEN %2$s >= 1 THEN (SELECT u.sent_at FROM gate_send u
                                          WHERE u.limit_name = %1$s AND u.seq >= %2$s ORDER BY u.seq LIMIT 1) END"""
                .formatted(limit, unit) + " ";
    }

    // The probe's unit (parameters: number, limit, number).
    private static final String UNIT_SENT = unitSent("?", "?::bigint");

    // A probe of its own, in a new snapshot, once the lock is held: after a grant of this pass, or when the lock's
    // snapshot missed a grant committed meanwhile. Sends are numbered per limit under this lock, so each probe is a
    // point lookup on (limit_name, seq): the last send, and per rule the calls-th most recent send, which fills the
    // rule's window if it lies inside it (and, if it just left it, tells when a send the cap held back became due).
    static String sql(int rules) {
        StringBuilder sql = new StringBuilder("""
                WITH t AS (SELECT clock_timestamp() AS now)
                SELECT t.now,
                       (SELECT sent_at FROM gate_send WHERE limit_name = ? AND seq = ?) AS last_sent""");
        for (int i = 0; i < rules; i++) {
            sql.append(",\n       ").append(UNIT_SENT).append(" AS nth_").append(i);
        }
        return sql.append("\nFROM t").toString();
    }

    /**
     * The probe the lock's statement read, if its snapshot holds the limit's latest send (the one the slot row
     * numbers): then it holds every earlier one too. Null when it may have missed sends: probe again.
     */
    static SendProbe locked(ResultSet rs, long seq) throws SQLException {
        Instant last = Times.get(rs, "last_sent");
        if (seq > 0 && last == null) {
            return null;
        }
        List<Optional<Instant>> nth = new ArrayList<>();
        nth.add(Optional.ofNullable(Times.get(rs, "nth_sent")));
        java.sql.Array rules = rs.getArray("rule_nth_sent");
        for (Object sent : (Object[]) rules.getArray()) {
            nth.add(Optional.ofNullable(sent == null ? null : Times.of(sent)));
        }
        return new SendProbe(Times.get(rs, "now"), Optional.ofNullable(last), nth);
    }

    /** @param seq the number of the limit's latest send (0: none yet) */
    static SendProbe read(Connection c, String limit, LimitRules limitRules, long seq) throws SQLException {
        return read(c, limit, limitRules, seq, Cost.ONE);
    }

    /** As above, for a call of {@code cost}: per rule, the unit that must leave its window before the call fits. */
    static SendProbe read(Connection c, String limit, LimitRules limitRules, long seq, Cost cost) throws SQLException {
        List<Pace> rules = limitRules.rules();
        try (PreparedStatement ps = c.prepareStatement(sql(rules.size()))) {
            int p = 1;
            ps.setString(p++, limit);
            ps.setLong(p++, seq);
            for (Pace pace : rules) {
                long unit = cost.unitToLeave(seq, pace.calls());
                ps.setLong(p++, unit);
                ps.setString(p++, limit);
                ps.setLong(p++, unit);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                List<Optional<Instant>> nth = new ArrayList<>();
                for (int i = 0; i < rules.size(); i++) {
                    nth.add(Optional.ofNullable(Times.get(rs, "nth_" + i)));
                }
                return new SendProbe(Times.get(rs, "now"), Optional.ofNullable(Times.get(rs, "last_sent")), nth);
            }
        }
    }
}
