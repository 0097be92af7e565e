package dev.gate.store;

import dev.gate.api.CallClass;
import dev.gate.domain.Grant;
import dev.gate.rules.Aging;
import dev.gate.rules.Beat;
import dev.gate.rules.LimitRules;
import dev.gate.rules.SlotDecision;
import dev.gate.rules.SlotRule;
import dev.gate.rules.VendorCount;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The slot of a parent limit, locked by a key's grant pass (lock order: the key's slot, then its parent's; a
 * parent's own pass locks only its own), so that a key's call is granted only when it fits the parent's beat and
 * window as well as its key's; each grant takes one of the parent's sends.
 */
final class ParentSlot {

    // The parent's own live waiting calls of a try's class or higher (a few are enough to say "not now"), a call the
    // starvation guard lifted counting as its guard's class; a dead instance's calls do not count (the grant pass
    // passes them over: counted, they would hold every try back until their leases ran out). Parameters: parent, class rank, class rank, the guard's
    // class rank (none: above every class), the guard's wait in ms.
    private static final String PARENT_AHEAD = """
            SELECT count(*) FROM (
                SELECT 1 FROM gate_call w
                WHERE w.limit_name = ? AND w.state = 'WAITING'
                  AND (w.call_class <= ? OR (? >= ?  -- lifted by the starvation guard to the try's class or higher
                       AND w.enqueued_at < clock_timestamp() - ? * interval '1 millisecond'))
                  AND w.lease_expires_at > clock_timestamp() AND """ + InstanceLock.OWNER_ALIVE + """
                LIMIT 1000) a""";

    // A key's grant logged in its parent's send log too, at the grant's own time, on the parent's beat; the parent's
    // beat and send number move. Parameters: limit, call id, sent at, slot, seq, next slot, seq, limit.
    private static final String PARENT_SEND = """
            WITH sent AS (INSERT INTO gate_send (limit_name, call_id, sent_at, slot_at, seq) VALUES (?, ?, ?, ?, ?))
            UPDATE gate_slot SET next_slot_at = ?, send_seq = ? WHERE limit_name = ?""";

    private final String name;
    private final LimitRules rules;
    private final Instant pausedUntil;
    private final VendorCount vendor; // the parent's vendor count, or null
    private final Aging aging; // the parent's starvation guard, or null
    private Instant slot;
    private long seq;
    private SendProbe probe;
    private Instant due;
    Instant decidedAt; // the clock read its last decision was made on

    private ParentSlot(String name, SlotLock.Locked locked) {
        this.name = name;
        this.rules = locked.rules();
        this.pausedUntil = locked.pausedUntil();
        this.vendor = locked.vendor();
        this.aging = locked.order().aging();
        this.slot = locked.slot();
        this.seq = locked.seq();
        this.probe = locked.probe();
    }

    /** Locks the parent's slot; empty when another transaction holds it (it is granting right now). */
    static Optional<ParentSlot> lock(Connection c, String parent) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(SlotLock.SQL)) {
            ps.setString(1, parent);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return SlotLock.locked(rs).map(l -> new ParentSlot(parent, l));
            }
        }
    }

    /** Empty when the parent may send now, and then its slot is noted for {@link #took}; else when it may. */
    Optional<Instant> due(Connection c) throws SQLException {
        SendProbe p = probe != null ? probe : SendProbe.read(c, name, rules, seq);
        probe = null;
        decidedAt = p.now();
        SlotDecision decision = p.decide(rules, decidedAt, slot,
                SlotLock.held(pausedUntil, vendor, seq, dev.gate.rules.Cost.ONE, decidedAt));
        if (!decision.sendNow()) {
            return Optional.of(decision.notBefore());
        }
        due = decision.notBefore();
        return Optional.empty();
    }

    /** A try's claim on a key's parent: its slot, free now and locked; or, without one, how long until it may be. */
    record Claim(ParentSlot slot, Duration notNow) {
    }

    /**
     * For a try on one of the parent's keys (the key's slot locked already): the parent's slot if it may send now
     * and no live call of {@code callClass} or a higher one waits in the parent's own line (a try never jumps a
     * queue it would be behind). {@code busy}: come back after this when a grant pass holds the parent's slot.
     */
    static Claim claim(Connection c, String parent, CallClass callClass, Duration busy) throws SQLException {
        Optional<ParentSlot> locked = lock(c, parent);
        if (locked.isEmpty()) {
            return new Claim(null, busy);
        }
        ParentSlot slot = locked.get();
        Optional<Instant> notBefore = slot.due(c);
        Duration untilDue = notBefore.map(t -> Duration.between(slot.decidedAt, t)).filter(d -> !d.isNegative())
                .orElse(Duration.ZERO);
        long ahead;
        try (PreparedStatement ps = c.prepareStatement(PARENT_AHEAD)) {
            ps.setString(1, parent);
            ps.setInt(2, callClass.rank());
            ps.setInt(3, callClass.rank());
            ps.setInt(4, slot.aging == null ? Integer.MAX_VALUE : slot.aging.upToRank());
            ps.setLong(5, slot.aging == null ? 0 : slot.aging.after().toMillis());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                ahead = rs.getLong(1);
            }
        }
        if (notBefore.isEmpty() && ahead == 0) {
            return new Claim(slot, Duration.ZERO);
        }
        return new Claim(null, untilDue.plus(slot.rules.gap().multipliedBy(ahead)));
    }

    /**
     * The key's grant takes the parent's slot {@link #due} found free; the parent's beat moves on from it, or
     * restarts from the grant's own time (as the key's does).
     */
    void took(Connection c, Grant grant) throws SQLException {
        Instant next = SlotRule.blockTurn(rules, Beat.next(due, grant.grantedAt(), rules.gap(), rules.burst()),
                java.util.Optional.of(grant.grantedAt()));
        try (PreparedStatement ps = c.prepareStatement(PARENT_SEND)) {
            ps.setString(1, name);
            ps.setLong(2, grant.callId());
            Times.set(ps, 3, grant.grantedAt());
            Times.set(ps, 4, due);
            ps.setLong(5, seq + 1);
            Times.set(ps, 6, next);
            ps.setLong(7, seq + 1);
            ps.setString(8, name);
            ps.executeUpdate();
        }
        seq++;
        slot = next;
    }
}
