package dev.gate.store;

import dev.gate.client.CallClass;
import dev.gate.line.Beat;
import dev.gate.line.LimitRules;
import dev.gate.line.Pace;
import dev.gate.line.ReceiptMargin;
import dev.gate.line.SlotDecision;
import dev.gate.line.SlotRule;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The grant transaction for one limit. Locks the limit's slot row (the per-limit mutex across every gate instance),
 * then, while the beat and the window cap both say go and calls wait, grants the head of the line, logs the send
 * and moves the beat. Several due slots are granted in the one transaction. Callers are told only after commit.
 */
public final class Granter {

    /** Upper bound of grants in one transaction, so one busy limit cannot hold its lock for long. */
    static final int MAX_GRANTS_PER_PASS = 64;

    // SKIP LOCKED: nobody queues on a limit's lock. If another transaction holds it, that one is granting (or moving
    // the cool-down) right now, and this pass comes back shortly instead of waiting behind it.
    private static final String LOCK_SLOT = """
            SELECT s.next_slot_at, s.paused_until, s.send_seq, l.calls, l.window_ms, l.min_interval_ms,
                   l.receipt_margin_ms,
                   ARRAY(SELECT r.calls FROM gate_limit_rule r WHERE r.limit_name = l.name ORDER BY r.window_ms)
                       AS rule_calls,
                   ARRAY(SELECT r.window_ms FROM gate_limit_rule r WHERE r.limit_name = l.name ORDER BY r.window_ms)
                       AS rule_windows
            FROM gate_slot s JOIN gate_limit l ON l.name = s.limit_name
            WHERE s.limit_name = ?
            FOR UPDATE OF s SKIP LOCKED""";

    // An empty pass for a limit that is gone tells the loop so, rather than coming back for it.
    private static final String EXISTS = "SELECT 1 FROM gate_limit WHERE name = ?";

    /**
     * Channel of call notifications: the ids (comma-separated) of calls that were just granted or got their outcome.
     */
    public static final String CHANNEL = "gate_call";

    // The beat and the send number move together, under the slot lock the pass holds; the grants are announced in
    // the same round trip, and a listener hears of them only once they are committed.
    private static final String MOVE_SLOT_AND_NOTIFY = """
            WITH moved AS (UPDATE gate_slot SET next_slot_at = ?, send_seq = ? WHERE limit_name = ?)
            SELECT pg_notify('""" + CHANNEL + "', ?)";

    // "now" is read after the lock is held (a separate statement), so waiting for the lock cannot age it. Sends are
    // numbered per limit under this lock, so each probe is a point lookup on (limit_name, seq): the last send, and
    // per rule the calls-th most recent send, which fills the rule's window if it lies inside it.
    static String probeSql(int rules) {
        StringBuilder sql = new StringBuilder("""
                WITH t AS (SELECT clock_timestamp() AS now)
                SELECT t.now,
                       (SELECT sent_at FROM gate_send WHERE limit_name = ? AND seq = ?) AS last_sent""");
        for (int i = 0; i < rules; i++) {
            sql.append(",\n       (SELECT sent_at FROM gate_send WHERE limit_name = ? AND seq = ? AND sent_at > t.now - ? * "
                    + "interval '1 microsecond') AS nth_").append(i);
        }
        return sql.append("\nFROM t").toString();
    }

    // Head of the line: highest class, then arrival, then the identity sequence. Never granted: an expired lease, a
    // passed deadline, or a key another call holds granted and not yet done (that call goes around it, keeping its
    // place). A grant's lease starts anew: a key is free again when the call is done, cancelled, or its lease runs out.
    // A call whose gate instance is dead (its process gone) is passed over: nobody is left to take its grant.
    static final String GRANT_HEAD = """
            WITH head AS (
                SELECT id FROM gate_call w
                WHERE limit_name = ? AND state = 'WAITING' AND lease_expires_at > ?
                  AND (deadline_at IS NULL OR deadline_at > ?)
                  AND """ + InstanceLock.OWNER_ALIVE + """
                  AND (concurrency_key IS NULL OR NOT EXISTS (
                        SELECT 1 FROM gate_call g
                        WHERE g.limit_name = w.limit_name AND g.concurrency_key = w.concurrency_key
                          AND g.state = 'GRANTED' AND g.lease_expires_at > ?))
                ORDER BY call_class, enqueued_at, id
                LIMIT 1
                FOR UPDATE),
            granted AS (
                UPDATE gate_call c SET state = 'GRANTED', granted_at = ?,
                                       lease_expires_at = ? + c.lease_ms * interval '1 millisecond'
                FROM head WHERE c.id = head.id
                RETURNING c.id, c.limit_name, c.call_class, c.owner, c.enqueued_at, c.granted_at),
            sent AS (
                INSERT INTO gate_send (limit_name, call_id, sent_at, slot_at, seq)
                SELECT limit_name, id, granted_at, ?, ? FROM granted)
            SELECT id, call_class, owner, enqueued_at, granted_at,
                   EXISTS (SELECT 1 FROM gate_call o WHERE o.limit_name = granted.limit_name AND o.state = 'WAITING'
                                                       AND o.id <> granted.id) AS more_waiting
            FROM granted""";

    private final Tx tx;

    public Granter(Tx tx) {
        this.tx = tx;
    }

    /**
     * Grants every call of {@code limit} that is due now, in one transaction. If another transaction holds the
     * limit's lock (it is granting right now), skips instead of queueing behind it: neither the loop nor a caller's
     * fast path ever waits on another instance.
     */
    public GrantPass grantDue(String limit) throws StoreUnavailable {
        return tx.run(c -> grantDue(c, limit));
    }

    /** As {@link #grantDue(String)}, inside a transaction of the caller's (the fast path: its join's). */
    static GrantPass grantDue(Connection c, String limit) throws SQLException {
        Instant slot;
        Instant pausedUntil;
        LimitRules limitRules;
        long seq;
        try (PreparedStatement ps = c.prepareStatement(LOCK_SLOT)) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return !exists(c, limit) ? new GrantPass(List.of(), Instant.EPOCH, Optional.empty(), false)
                            : GrantPass.lockedElsewhere();
                }
                slot = Times.get(rs, "next_slot_at");
                pausedUntil = Times.get(rs, "paused_until");
                seq = rs.getLong("send_seq");
                limitRules = rules(rs);
            }
        }
        List<Grant> grants = new ArrayList<>();
        Instant now;
        Optional<Instant> nextDue;
        while (true) {
            Probe probe = probe(c, limit, limitRules, seq);
            now = probe.now();
            SlotDecision decision = SlotRule.decide(limitRules, now, slot, probe.nthSent(), probe.lastSent(),
                    pausedUntil);
            if (!decision.sendNow()) {
                nextDue = Optional.of(decision.notBefore());
                break;
            }
            if (grants.size() >= MAX_GRANTS_PER_PASS) {
                nextDue = Optional.of(now);
                break;
            }
            Optional<Head> head = grantHead(c, limit, now, slot, seq + 1);
            if (head.isEmpty()) {
                nextDue = Optional.empty();
                break;
            }
            grants.add(head.get().grant());
            seq++;
            slot = Beat.next(slot, now, limitRules.gap());
            if (!head.get().moreWaiting()) {
                nextDue = Optional.empty(); // the line is empty now: no need to look at the clock again
                break;
            }
        }
        if (!grants.isEmpty()) { // the slot moves exactly when something was granted
            moveAndAnnounce(c, limit, slot, seq, grants);
        }
        return new GrantPass(List.copyOf(grants), now, nextDue, false);
    }

    /** The announcement is delivered at commit: every instance's listener learns of the grants once durable. */
    private static void moveAndAnnounce(Connection c, String limit, Instant slot, long seq, List<Grant> grants)
            throws SQLException {
        StringBuilder ids = new StringBuilder();
        for (Grant g : grants) {
            ids.append(ids.isEmpty() ? "" : ",").append(g.callId());
        }
        try (PreparedStatement ps = c.prepareStatement(MOVE_SLOT_AND_NOTIFY)) {
            Times.set(ps, 1, slot);
            ps.setLong(2, seq);
            ps.setString(3, limit);
            ps.setString(4, ids.toString());
            ps.execute();
        }
    }

    private static boolean exists(Connection c, String limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(EXISTS)) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** The limit's rules as the cap and the beat count them: each window widened by its receipt margin. */
    static LimitRules rules(ResultSet rs) throws SQLException {
        List<Pace> rules = new ArrayList<>();
        rules.add(Pace.of(rs.getInt("calls"), rs.getLong("window_ms")));
        Integer[] calls = (Integer[]) rs.getArray("rule_calls").getArray();
        Long[] windows = (Long[]) rs.getArray("rule_windows").getArray();
        for (int i = 0; i < calls.length; i++) {
            rules.add(Pace.of(calls[i], windows[i]));
        }
        long margin = rs.getLong("receipt_margin_ms");
        return ReceiptMargin.ofNullable(rs.wasNull() ? null : Duration.ofMillis(margin))
                .widen(new LimitRules(rules, Duration.ofMillis(rs.getLong("min_interval_ms"))));
    }

    private record Probe(Instant now, Optional<Instant> lastSent, List<Optional<Instant>> nthSent) {
    }

    /** @param seq the number of the limit's latest send (0: none yet) */
    private static Probe probe(Connection c, String limit, LimitRules limitRules, long seq) throws SQLException {
        List<Pace> rules = limitRules.rules();
        try (PreparedStatement ps = c.prepareStatement(probeSql(rules.size()))) {
            int p = 1;
            ps.setString(p++, limit);
            ps.setLong(p++, seq);
            for (Pace pace : rules) {
                ps.setString(p++, limit);
                ps.setLong(p++, seq - (pace.calls() - 1));
                ps.setLong(p++, pace.window().toNanos() / 1_000);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                List<Optional<Instant>> nth = new ArrayList<>();
                for (int i = 0; i < rules.size(); i++) {
                    nth.add(Optional.ofNullable(Times.get(rs, "nth_" + i)));
                }
                return new Probe(Times.get(rs, "now"), Optional.ofNullable(Times.get(rs, "last_sent")), nth);
            }
        }
    }

    /** A granted head of the line, and whether other calls still wait behind it. */
    private record Head(Grant grant, boolean moreWaiting) {
    }

    private static Optional<Head> grantHead(Connection c, String limit, Instant now, Instant slot, long seq)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(GRANT_HEAD)) {
            ps.setString(1, limit);
            Times.set(ps, 2, now);
            Times.set(ps, 3, now);
            Times.set(ps, 4, now);
            Times.set(ps, 5, now);
            Times.set(ps, 6, now);
            Times.set(ps, 7, slot);
            ps.setLong(8, seq);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Head(new Grant(rs.getLong("id"), limit,
                        CallClass.ofRank(rs.getInt("call_class")), rs.getString("owner"),
                        Times.get(rs, "enqueued_at"), Times.get(rs, "granted_at")), rs.getBoolean("more_waiting")));
            }
        }
    }
}
