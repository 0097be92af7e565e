package dev.gate.store;

import dev.gate.dev.GateDatabase;
import dev.gate.dev.LimitRow;
import dev.gate.rules.CalendarBlocks;
import dev.gate.rules.LimitRules;
import dev.gate.rules.Pace;
import dev.gate.rules.ReceiptMargin;
import dev.gate.rules.VendorCount;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The statement that keeps a vendor's count ({@link Outcomes}) and the Java rule ({@link VendorCount#explained}) agree
 * on whether the gate's own sends explain it, and a count of 0 so explained holds until the Java rule's
 * {@link VendorCount#ownLeave} (bounded by the vendor's reset and the cap), on 400 random limits (a sliding or an
 * aligned rule, a more rule, receipt margins), send logs, reporting calls and counts (with a stated quota or none);
 * each state is rolled back.
 */
class VendorCountDecisionTest {

    private static Connection c;
    private static int heldOwn;

    @BeforeAll
    static void database() throws SQLException {
        c = GateDatabase.fresh("gate_vendor_count_decision_test").connect();
        c.setAutoCommit(false);
    }

    @AfterAll
    static void close() throws SQLException {
        c.close();
    }

    @Test
    void theStatementAndTheJavaRuleAgreeOnWhetherTheGatesOwnSendsExplainACount() throws SQLException {
        Random random = new Random(11);
        int explained = 0;
        int decided = 0;
        for (int i = 0; i < 400; i++) {
            Boolean e = scenario(random, "count-" + i);
            if (e != null) {
                decided++;
                explained += e ? 1 : 0;
            }
        }
        System.out.println("vendor count: " + decided + " of 400 random states decided the same way by the statement "
                + "and the rule (the rest on a window's edge while the statement ran), " + explained + " explained, "
                + heldOwn + " of them a count of 0 held to the gate's own log");
        assertTrue(heldOwn > 10, "counts of 0 of the gate's own full window: " + heldOwn);
        assertTrue(decided >= 380, "a state on a window's edge is rare: " + decided);
        assertTrue(explained > 40 && explained < decided - 40, "both ways: " + explained + " of " + decided);
    }

    /** One random state, rolled back; whether the count is explained, or null when the clock crossed an edge. */
    private static Boolean scenario(Random random, String limit) throws SQLException {
        int calls = new int[]{2, 5, 10, 20}[random.nextInt(4)];
        long windowMs = new long[]{1000, 2000, 60_000, 3_600_000}[random.nextInt(4)];
        Long marginMs = new Long[]{null, 0L, 50L, 100L}[random.nextInt(4)];
        LimitRow.insert(c, limit, calls, Duration.ofMillis(windowMs), "receipt_margin_ms", marginMs);
        List<Pace> rules = new ArrayList<>(List.of(Pace.of(calls, windowMs)));
        if (windowMs >= 60_000 && random.nextInt(3) == 0) { // the vendor's fixed blocks
            CalendarBlocks blocks = new CalendarBlocks(Duration.ofMillis(windowMs), ZoneId.of("America/Los_Angeles"),
                    LocalTime.of(random.nextInt(24), 0));
            sql("UPDATE gate_limit SET aligned_zone = ?, aligned_at = ?::time WHERE name = ?", blocks.zone().getId(),
                    blocks.at().toString(), limit);
            rules.set(0, Pace.aligned(calls, blocks));
        }
        if (random.nextInt(3) == 0) { // a daily quota beside it
            sql("INSERT INTO gate_limit_rule (limit_name, calls, window_ms) VALUES (?, ?, ?)", limit, 40 * calls,
                    86_400_000L);
            rules.add(Pace.of(40 * calls, 86_400_000L));
        }
        // a send log over the last 1.5 windows (at most a day), numbered in time order, and the reporting call's unit
        int sends = 1 + random.nextInt(2 * calls);
        long spanMs = Math.min(86_400_000L, windowMs * 3 / 2);
        List<Long> agoMs = new ArrayList<>();
        for (int s = 0; s < sends; s++) {
            agoMs.add((long) random.nextInt((int) Math.min(spanMs, Integer.MAX_VALUE)));
        }
        agoMs.sort((a, b) -> Long.compare(b, a));
        for (int s = 0; s < sends; s++) {
            sql("INSERT INTO gate_send (limit_name, call_id, sent_at, seq) VALUES (?, ?, clock_timestamp() - ? * "
                    + "interval '1 millisecond', ?)", limit, -1L - s, agoMs.get(s), (long) s + 1);
        }
        int unit = sends - random.nextInt(Math.min(3, sends)); // calls granted after it may be in flight
        long callId = reportingCall(limit, unit);
        int remaining = random.nextInt(3) == 0 ? 0 : random.nextInt(calls + 1);
        Integer quota = new Integer[]{null, null, calls, 40 * calls, 7}[random.nextInt(5)];
        if (quota != null && quota < remaining) {
            quota = null;
        }
        Instant before = now();
        Outcomes.VendorTaken taken = Outcomes.vendorCount(c, callId,
                new Outcomes.VendorReport(remaining, 30, quota));
        Instant after = now();
        List<Instant> sentAt = sentAt(limit, unit);
        Instant heldUntil = null;
        try (PreparedStatement ps = c.prepareStatement("SELECT vendor_reset_at FROM gate_slot WHERE limit_name = ?")) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                heldUntil = Times.get(rs, "vendor_reset_at");
            }
        }
        c.rollback();

        LimitRules counted = ReceiptMargin.ofNullable(marginMs == null ? null : Duration.ofMillis(marginMs))
                .widen(new LimitRules(rules, Duration.ZERO, 1));
        boolean atBefore = VendorCount.explained(remaining, quota, counted, p -> own(p, sentAt, before));
        boolean atAfter = VendorCount.explained(remaining, quota, counted, p -> own(p, sentAt, after));
        if (atBefore != atAfter) {
            return null; // a send crossed a window's edge while the statement ran
        }
        String state = limit + " " + counted + " remaining " + remaining + " quota " + quota + " unit " + unit + " of "
                + sends + " sent at " + sentAt + " now " + before;
        assertEquals(atBefore, taken.explained(), state);
        if (atBefore && remaining == 0 && taken.taken()) { // the gate's own full window: held until its unit leaves
            Instant leaves = VendorCount.ownLeave(quota, counted, unit, n -> n >= 1 && n <= sentAt.size()
                    ? sentAt.get((int) n - 1) : null);
            Duration cap = VendorCount.resetCap(new LimitRules(rules, Duration.ZERO, 1), Duration.ofHours(1));
            cap = cap.compareTo(Duration.ofSeconds(30)) < 0 ? cap : Duration.ofSeconds(30);
            if (leaves.isAfter(after) && leaves.isBefore(before.plus(cap))) {
                assertEquals(leaves, heldUntil, "a count of 0 of the gate's own full window: " + state);
            } else if (!leaves.isAfter(before)) {
                assertTrue(!heldUntil.isBefore(before) && !heldUntil.isAfter(after), "no hold: " + state);
            } else if (!leaves.isBefore(after.plus(cap))) {
                assertTrue(!heldUntil.isBefore(before.plus(cap)) && !heldUntil.isAfter(after.plus(cap)),
                        "the vendor's reset or the cap first: " + state);
            }
            heldOwn++;
        }
        return atBefore;
    }

    /** The gate's units in a rule's window as it counts it (its margin included), up to the reporting unit. */
    private static long own(Pace p, List<Instant> sentAt, Instant now) {
        Instant from = p.isAligned() ? p.blocks().at(now).start().minus(p.margin()) : now.minus(p.window());
        return sentAt.stream().filter(t -> !t.isBefore(from)).count();
    }

    private static long reportingCall(String limit, int unit) throws SQLException {
        long id;
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO gate_call (limit_name, call_class, program, owner, "
                + "state, lease_ms, lease_expires_at, granted_at) SELECT ?, 2, 'tester', 'program:tester', 'GRANTED', "
                + "30000, clock_timestamp() + interval '30 s', sent_at FROM gate_send WHERE limit_name = ? AND seq = ? "
                + "RETURNING id")) {
            ps.setString(1, limit);
            ps.setString(2, limit);
            ps.setLong(3, unit);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                id = rs.getLong(1);
            }
        }
        sql("UPDATE gate_send SET call_id = ? WHERE limit_name = ? AND seq = ?", id, limit, (long) unit);
        return id;
    }

    private static List<Instant> sentAt(String limit, int upTo) throws SQLException {
        List<Instant> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT sent_at FROM gate_send WHERE limit_name = ? AND seq <= ? ORDER BY seq")) {
            ps.setString(1, limit);
            ps.setLong(2, upTo);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(Times.get(rs, "sent_at"));
                }
            }
        }
        return out;
    }

    private static Instant now() throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT clock_timestamp() AS now");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return Times.get(rs, "now");
        }
    }

    private static void sql(String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            ps.execute();
        }
    }
}
