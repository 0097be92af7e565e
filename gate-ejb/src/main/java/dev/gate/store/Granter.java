package dev.gate.store;

import dev.gate.client.CallClass;
import dev.gate.client.GatePausedException;
import dev.gate.line.Beat;
import dev.gate.line.LimitRules;
import dev.gate.line.Pace;
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

    private static final String LOCK_SLOT = """
            SELECT s.next_slot_at, s.paused_until, l.calls, l.window_ms, l.min_interval_ms,
                   ARRAY(SELECT r.calls FROM gate_limit_rule r WHERE r.limit_name = l.name ORDER BY r.window_ms)
                       AS rule_calls,
                   ARRAY(SELECT r.window_ms FROM gate_limit_rule r WHERE r.limit_name = l.name ORDER BY r.window_ms)
                       AS rule_windows
            FROM gate_slot s JOIN gate_limit l ON l.name = s.limit_name
            WHERE s.limit_name = ?
            FOR UPDATE OF s""";

    private static final String EXISTS = "SELECT 1 FROM gate_limit WHERE name = ?";

    /**
     * Channel of call notifications: the ids (comma-separated) of calls that were just granted or got their outcome.
     */
    public static final String CHANNEL = "gate_call";

    private static final String NOTIFY = "SELECT pg_notify('" + CHANNEL + "', ?)";

    // "now" is read after the lock is held (a separate statement), so waiting for the lock cannot age it. One
    // window probe per rule: the calls-th most recent send inside the rule's window, if there are that many.
    private static String probeSql(int rules) {
        StringBuilder sql = new StringBuilder("""
                WITH t AS (SELECT clock_timestamp() AS now)
                SELECT t.now,
                       (SELECT max(sent_at) FROM gate_send WHERE limit_name = ?) AS last_sent""");
        for (int i = 0; i < rules; i++) {
            sql.append(",\n       (SELECT sent_at FROM gate_send WHERE limit_name = ? AND sent_at > t.now - ? * "
                    + "interval '1 microsecond' ORDER BY sent_at DESC OFFSET ? LIMIT 1) AS nth_").append(i);
        }
        return sql.append("\nFROM t").toString();
    }

    // Head of the line: highest class, then arrival, then the identity sequence. Never granted: an expired lease, a
    // passed deadline, or a key another call holds granted and not yet done (that call goes around it, keeping its
    // place). A grant's lease starts anew: a key is free again when the call is done, cancelled, or its lease runs out.
    private static final String GRANT_HEAD = """
            WITH head AS (
                SELECT id FROM gate_call w
                WHERE limit_name = ? AND state = 'WAITING' AND lease_expires_at > ?
                  AND (deadline_at IS NULL OR deadline_at > ?)
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
                INSERT INTO gate_send (limit_name, call_id, sent_at, slot_at)
                SELECT limit_name, id, granted_at, ? FROM granted)
            SELECT id, call_class, owner, enqueued_at, granted_at FROM granted""";

    private static final String MOVE_SLOT = "UPDATE gate_slot SET next_slot_at = ? WHERE limit_name = ?";

    private static final String LIMITS_WITH_WAITING_CALLS = """
            SELECT l.name FROM gate_limit l
            WHERE EXISTS (SELECT 1 FROM gate_call c WHERE c.limit_name = l.name AND c.state = 'WAITING')
            ORDER BY l.name""";

    private final Tx tx;

    public Granter(Tx tx) {
        this.tx = tx;
    }

    /** Grants every call of {@code limit} that is due now, in one transaction; waits for the limit's lock. */
    public GrantPass grantDue(String limit) throws GatePausedException {
        return tx.run(c -> grantDue(c, limit, true));
    }

    /**
     * As {@link #grantDue(String)}, but if another transaction holds the limit's lock (it is granting right now),
     * skip instead of queueing behind it: a caller's fast path must not wait on the loop.
     */
    public GrantPass tryGrantDue(String limit) throws GatePausedException {
        return tx.run(c -> grantDue(c, limit, false));
    }

    public List<String> limitsWithWaitingCalls() throws GatePausedException {
        return tx.run(c -> {
            List<String> names = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(LIMITS_WITH_WAITING_CALLS);
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
            return names;
        });
    }

    private static GrantPass grantDue(Connection c, String limit, boolean waitForLock) throws SQLException {
        Instant slot;
        Instant pausedUntil;
        LimitRules limitRules;
        try (PreparedStatement ps = c.prepareStatement(waitForLock ? LOCK_SLOT : LOCK_SLOT + " SKIP LOCKED")) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return waitForLock || !exists(c, limit) ? new GrantPass(limit, List.of(), Instant.EPOCH,
                            Optional.empty(), false) : GrantPass.skipped(limit);
                }
                slot = Times.get(rs, "next_slot_at");
                pausedUntil = Times.get(rs, "paused_until");
                limitRules = rules(rs);
            }
        }
        Instant startSlot = slot;
        List<Grant> grants = new ArrayList<>();
        Instant now;
        Optional<Instant> nextDue;
        while (true) {
            Probe probe = probe(c, limit, limitRules);
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
            Optional<Grant> grant = grantHead(c, limit, now, slot);
            if (grant.isEmpty()) {
                nextDue = Optional.empty();
                break;
            }
            grants.add(grant.get());
            slot = Beat.next(slot, now, limitRules.gap());
        }
        if (!slot.equals(startSlot)) {
            try (PreparedStatement ps = c.prepareStatement(MOVE_SLOT)) {
                Times.set(ps, 1, slot);
                ps.setString(2, limit);
                ps.executeUpdate();
            }
        }
        if (!grants.isEmpty()) {
            notifyGranted(c, grants);
        }
        return new GrantPass(limit, List.copyOf(grants), now, nextDue, false);
    }

    /** Delivered at commit, so every instance's listener learns of the grants only once they are durable. */
    private static void notifyGranted(Connection c, List<Grant> grants) throws SQLException {
        StringBuilder ids = new StringBuilder();
        for (Grant g : grants) {
            ids.append(ids.isEmpty() ? "" : ",").append(g.callId());
        }
        try (PreparedStatement ps = c.prepareStatement(NOTIFY)) {
            ps.setString(1, ids.toString());
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

    static LimitRules rules(ResultSet rs) throws SQLException {
        List<Pace> rules = new ArrayList<>();
        rules.add(Pace.of(rs.getInt("calls"), rs.getLong("window_ms")));
        Integer[] calls = (Integer[]) rs.getArray("rule_calls").getArray();
        Long[] windows = (Long[]) rs.getArray("rule_windows").getArray();
        for (int i = 0; i < calls.length; i++) {
            rules.add(Pace.of(calls[i], windows[i]));
        }
        return new LimitRules(rules, Duration.ofMillis(rs.getLong("min_interval_ms")));
    }

    private record Probe(Instant now, Optional<Instant> lastSent, List<Optional<Instant>> nthSent) {
    }

    private static Probe probe(Connection c, String limit, LimitRules limitRules) throws SQLException {
        List<Pace> rules = limitRules.rules();
        try (PreparedStatement ps = c.prepareStatement(probeSql(rules.size()))) {
            int p = 1;
            ps.setString(p++, limit);
            for (Pace pace : rules) {
                ps.setString(p++, limit);
                ps.setLong(p++, pace.window().toNanos() / 1_000);
                ps.setInt(p++, pace.calls() - 1);
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

    private static Optional<Grant> grantHead(Connection c, String limit, Instant now, Instant slot)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(GRANT_HEAD)) {
            ps.setString(1, limit);
            Times.set(ps, 2, now);
            Times.set(ps, 3, now);
            Times.set(ps, 4, now);
            Times.set(ps, 5, now);
            Times.set(ps, 6, now);
            Times.set(ps, 7, slot);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Grant(rs.getLong("id"), limit, CallClass.ofRank(rs.getInt("call_class")),
                        rs.getString("owner"), Times.get(rs, "enqueued_at"), Times.get(rs, "granted_at")));
            }
        }
    }
}
