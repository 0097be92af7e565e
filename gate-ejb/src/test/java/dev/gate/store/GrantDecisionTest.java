package dev.gate.store;

import dev.gate.api.CallClass;
import dev.gate.dev.GateDatabase;
import dev.gate.dev.LimitRow;
import dev.gate.domain.Grant;
import dev.gate.rules.AdaptiveRate;
import dev.gate.rules.Beat;
import dev.gate.rules.CalendarBlocks;
import dev.gate.rules.Cost;
import dev.gate.rules.LimitRules;
import dev.gate.rules.Pace;
import dev.gate.rules.ReceiptMargin;
import dev.gate.rules.SlotDecision;
import dev.gate.rules.SlotRule;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The one check that the two ways a grant is decided agree with the rules: on 400 random limits and send logs
 * (rules, margins, spacing, bursts, adaptive rates, cool-downs, calls waiting ahead, calls costing several units), the try-now statement (the rules
 * in SQL, {@link FreeSlot}) and the grant pass (the rules in Java under the slot lock, {@link Granter}) each run on
 * the same state and are rolled back (the try as it is and as it consumes, {@link FreeSlot#CONSUME}); each must agree with {@link SlotRule} (with Beat, ReceiptMargin, AdaptiveRate)
 * on whether a slot is free now, when it is due, and where the beat goes next.
 */
class GrantDecisionTest {

    private static Connection c;
    private static int passesGranting;
    private static int costlyTried;
    private static int costlyGranted;
    private static int costlyPassesGranting;
    private static int alignedTried;
    private static int alignedDecided;
    private static int vendorTried;
    private static int vendorHeld;
    private static int consumedTried;
    private static int consumedGranted;
    private static int oneRuleTried;
    private static int oneRuleGranted;
    private static int notOneRuleTold;

    /**
     * A call's state as the try wrote it; a DONE call also ended at its grant, with no outcome; a consume without a
     * key has no row, its units (cost of them) recording who and which class.
     */
    private static String callState(long id, int units, CallClass callClass) throws SQLException {
        try (var ps = c.prepareStatement("SELECT state, done_at = granted_at AND outcome_status IS NULL AS consumed "
                + "FROM gate_call WHERE id = ?")) {
            ps.setLong(1, id);
            try (var rs = ps.executeQuery()) {
                if (rs.next()) {
                    String state = rs.getString("state");
                    return state.equals("DONE") && rs.getBoolean("consumed") ? "DONE at its grant" : state;
                }
            }
        }
        try (var ps = c.prepareStatement("SELECT count(*) FROM gate_send WHERE call_id = ? AND program = 'tester' "
                + "AND owner = 'program:tester' AND call_class = ?")) {
            ps.setLong(1, id);
            ps.setInt(2, callClass.rank());
            try (var rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1) == units ? "DONE at its grant" : "no row, " + rs.getInt(1) + " units recorded";
            }
        }
    }

    @BeforeAll
    static void database() throws SQLException {
        c = GateDatabase.fresh("gate_grant_decision_test").connect();
        c.setAutoCommit(false);
    }

    @AfterAll
    static void close() throws SQLException {
        c.close();
    }

    @Test
    void theStatementAndTheJavaRulesAgreeOnRandomLimitsAndSendLogs() throws SQLException {
        Random random = new Random(7);
        int granted = 0;
        for (int i = 0; i < 400; i++) {
            granted += scenario(random, "try-" + i) ? 1 : 0;
        }
        System.out.println("free slot: " + granted + " of 400 random states granted by the try, " + passesGranting
                + " by the grant pass, the rest told when; of " + costlyTried + " calls costing more than 1 unit, "
                + costlyGranted + " granted by the try, " + costlyPassesGranting + " by the pass; of " + alignedTried
                + " limits with a rule on fixed blocks, " + alignedDecided + " where the blocks decided otherwise than "
                + "a sliding window would");
        assertTrue(alignedDecided > 5, "the blocks decide: " + alignedDecided);
        System.out.println("free slot: of " + vendorTried + " limits with a vendor's count, " + vendorHeld
                + " held back by it");
        assertTrue(vendorHeld > 5 && vendorHeld < vendorTried, "the vendor's count both ways: " + vendorHeld);
        assertTrue(costlyGranted > 10 && costlyGranted < costlyTried - 10, "costly calls both ways: " + costlyGranted);
        assertTrue(costlyPassesGranting > 10, "costly calls granted by the pass: " + costlyPassesGranting);
        System.out.println("free slot: of " + consumedTried + " consuming tries, " + consumedGranted + " granted");
        assertTrue(consumedGranted > 20 && consumedGranted < consumedTried, "consuming tries both ways: "
                + consumedGranted);
        System.out.println("free slot: " + oneRuleTried + " states decided by the one-rule form (" + oneRuleGranted
                + " granted), " + notOneRuleTold + " limits of more rules told so by it");
        assertTrue(oneRuleGranted > 20 && oneRuleGranted < oneRuleTried, "the one-rule form both ways: "
                + oneRuleGranted);
        assertTrue(notOneRuleTold > 50, "limits of more rules: " + notOneRuleTold);
        assertTrue(granted > 50 && granted < 350, "both outcomes are exercised: " + granted);
        assertTrue(passesGranting > 50 && passesGranting < 350, "both outcomes of the pass: " + passesGranting);
    }

    /**
     * A group's one call (gate_try_group) decides each member as the rules do, in class order, each on the send log
     * and beat the members before it left: on 300 random states with groups of one to six tries of every kind, each
     * member's due moment, grant and retry, and the slot row and send log after the group, against SlotRule run
     * member by member on the state as it evolves.
     */
    @Test
    void aGroupDecidesEachMemberAsTheRulesDoOnWhatTheOnesBeforeItSent() throws SQLException {
        Random random = new Random(11);
        int members = 0;
        int grantedMembers = 0;
        int groupsGrantingSeveral = 0;
        int refusedAfterAGrant = 0;
        for (int g = 0; g < 300; g++) {
            String limit = "group-" + g;
            Made m = made(random, limit);
            if (random.nextBoolean()) { // room for several: a burst of the main rule's size, an idle beat, no pause
                sql("UPDATE gate_limit SET burst = calls WHERE name = ?", limit);
                sql("UPDATE gate_slot SET next_slot_at = clock_timestamp() - interval '1 hour', paused_until = NULL "
                        + "WHERE limit_name = ?", limit);
                if (random.nextBoolean()) { // and the log pruned whole, as retention leaves an idle limit's
                    sql("DELETE FROM gate_send WHERE limit_name = ?", limit);
                }
                m = new Made(m.rules(), m.calls(), m.windowMs(), m.minIntervalMs(), m.marginMs(), m.calls(),
                        m.adaptive(), m.cutTo(), m.cutAt());
            }
            if (random.nextInt(5) == 0) {
                sql("INSERT INTO gate_call (limit_name, call_class, program, owner, state, lease_ms, lease_expires_at) "
                        + "VALUES (?, ?, 'other', 'program:other', 'WAITING', 30000, clock_timestamp() + interval "
                        + "'30 s')", limit, random.nextInt(5));
            }
            int n = 1 + random.nextInt(6);
            List<FreeSlot.Try> tries = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Cost cost = Cost.of(random.nextInt(3) > 0 ? 1 : 1 + random.nextInt(m.calls()));
                boolean consume = random.nextBoolean();
                String key = consume && random.nextBoolean() ? null : "key-" + limit + "-" + i;
                tries.add(new FreeSlot.Try(CallClass.ofRank(random.nextInt(5)), cost, "tester", "program:tester",
                        Duration.ofSeconds(30), key, consume));
            }
            State before = state(limit);
            List<FreeSlot.Decided> answers = FreeSlot.together(c, FreeSlot.TOGETHER, limit, tries);
            State after = state(limit);
            List<String> written = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Optional<Grant> grant = answers.get(i).get().orElseThrow().grant();
                written.add(grant.isEmpty() ? null
                        : callState(grant.get().callId(), tries.get(i).cost().units(), tries.get(i).callClass()));
            }
            c.rollback();

            // the rules, member by member in class order (first come first served inside a class)
            Instant now = answers.get(0).get().orElseThrow().now();
            LimitRules counted = m.counted(now);
            List<Integer> order = java.util.stream.IntStream.range(0, n).boxed()
                    .sorted(java.util.Comparator.comparingInt(i -> tries.get(i).callClass().rank())).toList();
            State s = before;
            int granted = 0;
            for (int i : order) {
                FreeSlot.Try t = tries.get(i);
                FreeSlot.Result r = answers.get(i).get().orElseThrow();
                String where = limit + " " + m + " member " + i + " of " + tries + " " + s;
                assertEquals(now, r.now(), "one clock for the group: " + where);
                SlotDecision d = decide(counted, now, s, t.cost());
                boolean grants = d.sendNow() && before.ahead(t.callClass()) == 0;
                assertEquals(d.notBefore(), r.due(), "when a send is due: " + where);
                assertEquals(grants, r.grant().isPresent(), "granted as the rules say: " + where);
                members++;
                if (!grants) {
                    refusedAfterAGrant += granted > 0 ? 1 : 0;
                    if (before.ahead(t.callClass()) == 0) {
                        assertEquals(Duration.between(now, d.notBefore()), r.retryAfter(), "retry when due: " + where);
                    }
                    continue;
                }
                assertEquals(now, r.grant().get().grantedAt());
                assertEquals(t.consume() ? "DONE at its grant" : "GRANTED", written.get(i), "written: " + where);
                java.util.TreeMap<Long, Instant> sends = new java.util.TreeMap<>(s.sends());
                for (long u = 1; u <= t.cost().units(); u++) {
                    sends.put(s.seq() + u, now);
                }
                Instant slot = SlotRule.blockTurn(counted, Beat.next(d.notBefore(), now, counted.gap(),
                        counted.burst(), t.cost()), Optional.of(now));
                s = new State(slot, s.pausedUntil(), s.seq() + t.cost().units(), sends, s.waiting(), s.cutAt(),
                        s.vendor());
                granted++;
                grantedMembers++;
            }
            groupsGrantingSeveral += granted > 1 ? 1 : 0;
            assertEquals(s.seq(), after.seq(), "a send per unit granted: " + limit);
            assertEquals(s.slot(), after.slot(), "the beat moved as the rules move it, member by member: " + limit);
            assertEquals(s.sends(), after.sends(), "the send log: " + limit);
        }
        System.out.println("try group: " + members + " members in 300 groups, " + grantedMembers + " granted; "
                + groupsGrantingSeveral + " groups granted several, " + refusedAfterAGrant
                + " members refused after one before them was granted");
        assertTrue(groupsGrantingSeveral > 10, "groups granting several: " + groupsGrantingSeveral);
        assertTrue(refusedAfterAGrant > 10, "refused on what the ones before sent: " + refusedAfterAGrant);
        assertTrue(grantedMembers > 50 && grantedMembers < members - 50, "both outcomes: " + grantedMembers);
    }

    /** The group's function counts a call ahead only while its owner lives, by the instance lock's own test. */
    @Test
    void theGroupCountsCallsAheadByTheInstanceLocksLiveness() throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT prosrc FROM pg_proc WHERE proname = 'gate_try_group'");
             ResultSet rs = ps.executeQuery()) {
            assertTrue(rs.next(), "gate_try_group is in the schema");
            assertTrue(rs.getString(1).contains(InstanceLock.OWNER_ALIVE), "the liveness test of gate_try_group "
                    + "is InstanceLock.OWNER_ALIVE: " + InstanceLock.OWNER_ALIVE);
        }
        c.rollback();
    }

    /** A random limit's declaration as made on the database: its rules as declared, and what the clock may change. */
    private record Made(List<Pace> rules, int calls, long windowMs, long minIntervalMs, Long marginMs, int burst,
                        boolean adaptive, Integer cutTo, Instant cutAt) {

        /** The rules counted at {@code now}: the adaptive rate then, each window widened by the margin. */
        LimitRules counted(Instant now) {
            List<Pace> at = new ArrayList<>(rules);
            if (adaptive) { // the main rule at the rate the last cut and the clock give (AdaptiveRate)
                at.set(0, at.get(0).withCalls(new AdaptiveRate(calls, Duration.ofMillis(windowMs))
                        .effective(cutTo, cutAt, now)));
            }
            return ReceiptMargin.ofNullable(marginMs == null ? null : Duration.ofMillis(marginMs))
                    .widen(new LimitRules(at, Duration.ofMillis(minIntervalMs), burst));
        }
    }

    /** A random limit, its send log and slot row (rules, margins, spacing, bursts, adaptive rates, cool-downs...). */
    private static Made made(Random random, String limit) throws SQLException {
        int calls = new int[]{1, 2, 3, 5, 10}[random.nextInt(5)];
        long windowMs = new long[]{100, 1000, 1001, 60000}[random.nextInt(4)];
        long minIntervalMs = random.nextInt(3) == 0 ? 30 : 0;
        Long marginMs = new Long[]{null, 0L, 20L}[random.nextInt(3)];
        int burst = Math.min(calls, new int[]{1, 1, 2, 4}[random.nextInt(4)]);
        boolean adaptive = random.nextInt(3) == 0;
        // on this test's connection: the limit is rolled back with the rest of the scenario
        LimitRow.insert(c, limit, calls, Duration.ofMillis(windowMs), "min_interval_ms", minIntervalMs,
                "receipt_margin_ms", marginMs, "burst", burst, "adaptive", adaptive);
        Integer cutTo = adaptive && random.nextBoolean() ? 1 + random.nextInt(calls) : null;
        long cutAgoMs = random.nextInt((int) Math.min(windowMs * 30, 3_000_000));
        sql("UPDATE gate_slot SET adaptive_calls = ?, adaptive_cut_at = CASE WHEN ?::int IS NULL THEN NULL ELSE "
                + "clock_timestamp() - ? * interval '1 millisecond' END WHERE limit_name = ?", cutTo, cutTo, cutAgoMs,
                limit);
        Instant cutAt = cutTo == null ? null : state(limit).cutAt();
        List<Pace> rules = new ArrayList<>(List.of(Pace.of(calls, windowMs)));
        // now and then on the vendor's fixed blocks (a window that divides a day), in one of a few zones (offsets in
        // each of Java's spellings too: kept as the offset alone, which the SQL must read with Java's sign)
        String[] zones = {"UTC", "America/Los_Angeles", "Asia/Kolkata", "+05:00", "UTC-08:00", "GMT+05:30",
                "Etc/GMT-3"};
        if (86_400_000 % windowMs == 0 && windowMs >= 1000 && random.nextInt(3) == 0) {
            CalendarBlocks blocks = new CalendarBlocks(Duration.ofMillis(windowMs),
                    ZoneId.of(zones[random.nextInt(zones.length)]), LocalTime.of(random.nextInt(24), 0));
            sql("UPDATE gate_limit SET aligned_zone = ?, aligned_at = ?::time WHERE name = ?", blocks.zone().getId(),
                    blocks.at().toString(), limit);
            rules.set(0, Pace.aligned(calls, blocks));
        }
        if (random.nextInt(3) == 0) {
            boolean aligned = random.nextBoolean();
            CalendarBlocks blocks = new CalendarBlocks(Duration.ofMillis(3000),
                    ZoneId.of(random.nextBoolean() ? "Asia/Kolkata" : "-03:30"), LocalTime.of(0, 30));
            sql("INSERT INTO gate_limit_rule (limit_name, calls, window_ms, aligned_zone, aligned_at) "
                    + "VALUES (?, ?, ?, ?, ?::time)", limit, 2 * calls, 3000L, aligned ? blocks.zone().getId() : null,
                    aligned ? "00:30" : null);
            rules.add(aligned ? Pace.aligned(2 * calls, blocks) : Pace.of(2 * calls, 3000));
        }
        // a send log: up to 12 sends over the last 1.5 s, numbered 1..n
        int sends = random.nextInt(13);
        List<Long> agoMs = new ArrayList<>();
        for (int s = 0; s < sends; s++) {
            agoMs.add((long) random.nextInt(1500));
        }
        agoMs.sort((a, b) -> Long.compare(b, a));
        for (int s = 0; s < sends; s++) {
            sql("INSERT INTO gate_send (limit_name, call_id, sent_at, seq) VALUES (?, ?, clock_timestamp() - ? * "
                    + "interval '1 millisecond', ?)", limit, (long) s, agoMs.get(s), (long) s + 1);
        }
        // now and then the oldest sends pruned, as retention does before a longer rule is given: the try statement
        // and the grant pass read a pruned unit the same way (as sent when the oldest kept one was, never as room)
        if (random.nextInt(4) == 0 && sends > 2) {
            sql("DELETE FROM gate_send WHERE limit_name = ? AND seq <= ?", limit, (long) random.nextInt(sends - 1));
        }
        // now and then the vendor's own count: a few units left after a recent send, until a reset near now
        if (random.nextInt(4) == 0 && sends > 0) {
            sql("UPDATE gate_slot SET vendor_after_unit = ?, vendor_remaining = ?, vendor_reset_at = clock_timestamp() "
                    + "+ ? * interval '1 millisecond' WHERE limit_name = ?", (long) Math.max(1, sends - random.nextInt(3)),
                    random.nextInt(4), (long) random.nextInt(600) - 100, limit);
        }
        long slotOffsetMs = random.nextInt(400) - 300;
        boolean paused = random.nextInt(5) == 0;
        sql("UPDATE gate_slot SET send_seq = ?, next_slot_at = clock_timestamp() + ? * interval '1 millisecond', "
                + "paused_until = CASE WHEN ? THEN clock_timestamp() + interval '50 ms' END WHERE limit_name = ?",
                (long) sends, slotOffsetMs, paused, limit);
        return new Made(rules, calls, windowMs, minIntervalMs, marginMs, burst, adaptive, cutTo, cutAt);
    }

    /** One random state, tried and rolled back; true when the statement granted. */
    private static boolean scenario(Random random, String limit) throws SQLException {
        Made m = made(random, limit);
        int calls = m.calls();
        long windowMs = m.windowMs();
        long minIntervalMs = m.minIntervalMs();
        Long marginMs = m.marginMs();
        int burst = m.burst();
        boolean adaptive = m.adaptive();
        Integer cutTo = m.cutTo();
        Instant cutAt = m.cutAt();
        List<Pace> rules = new ArrayList<>(m.rules());
        // a call of several units now and then (up to the main rule's calls: beyond an adaptive cut, too)
        Cost cost = Cost.of(random.nextBoolean() ? 1 : 1 + random.nextInt(calls));
        if (random.nextInt(5) == 0 && cost.isOne()) {
            sql("INSERT INTO gate_call (limit_name, call_class, program, owner, state, lease_ms, lease_expires_at) "
                    + "VALUES (?, ?, 'other', 'program:other', 'WAITING', 30000, clock_timestamp() + interval '30 s')",
                    limit, random.nextInt(5));
        }
        CallClass callClass = CallClass.ofRank(random.nextInt(5));
        State before = state(limit);
        Savepoint stateMade = c.setSavepoint();
        // a consuming try decides as a try, and writes its call DONE (with the caller's key) or none (without)
        boolean consume = random.nextBoolean();
        String key = consume && random.nextBoolean() ? null : "key-" + limit;
        // both forms of the statement: the one-rule form on most limits of one rule, the one for any limit on the rest;
        // on a limit of more rules (or an adaptive rate, or blocks) the one-rule form decides and writes nothing, and
        // says so
        FreeSlot.TryStatement statement = FreeSlot.statement(consume, key);
        boolean oneRule = !adaptive && rules.size() == 1 && !rules.get(0).isAligned();
        if (!oneRule) {
            Optional<FreeSlot.Result> none = FreeSlot.take(c, statement.oneRule(), true, limit, null, callClass, cost,
                    "tester", "program:tester", Duration.ofSeconds(30), key);
            assertTrue(FreeSlot.notOneRule(none), "the one-rule form decided a limit of more: " + none);
            assertEquals(before, state(limit), "the one-rule form wrote on a limit of more");
            notOneRuleTold++;
        }
        boolean oneRuleForm = oneRule && random.nextInt(4) > 0;
        oneRuleTried += oneRuleForm ? 1 : 0;
        Optional<FreeSlot.Result> result = FreeSlot.take(c, oneRuleForm ? statement.oneRule() : statement.any(),
                oneRuleForm, limit, null, callClass, cost, "tester", "program:tester", Duration.ofSeconds(30), key);
        assertTrue(!FreeSlot.notOneRule(result), "a limit of one rule told otherwise: " + limit);
        State after = state(limit);
        String written = result.flatMap(FreeSlot.Result::grant).isEmpty() ? null
                : callState(result.get().grant().get().callId(), cost.units(), callClass);
        consumedTried += consume ? 1 : 0;
        c.rollback(stateMade);
        Pass pass = pass(limit, callClass, cost, before);
        costlyTried += cost.isOne() ? 0 : 1;
        c.rollback();

        FreeSlot.Result r = result.orElseThrow();
        Instant now = r.now();
        if (adaptive) { // the main rule at the rate the last cut and the clock give (AdaptiveRate)
            rules.set(0, rules.get(0).withCalls(new AdaptiveRate(calls, Duration.ofMillis(windowMs))
                    .effective(cutTo, cutAt, now)));
        }
        LimitRules counted = ReceiptMargin.ofNullable(marginMs == null ? null : Duration.ofMillis(marginMs))
                .widen(new LimitRules(rules, Duration.ofMillis(minIntervalMs), burst));
        String where = limit + " " + rules + " margin " + marginMs + " spacing " + minIntervalMs + " burst " + burst + " adaptive " + adaptive + "/" + cutTo + " class "
                + callClass + " cost " + cost.units() + " " + before;
        SlotDecision d = decide(counted, now, before, cost);
        if (before.vendor() != null) {
            vendorTried++;
            vendorHeld += before.vendor().holdsUntil(before.seq(), cost, now).isPresent() ? 1 : 0;
        }
        if (rules.stream().anyMatch(Pace::isAligned)) {
            alignedTried++;
            LimitRules sliding = ReceiptMargin.ofNullable(marginMs == null ? null : Duration.ofMillis(marginMs))
                    .widen(new LimitRules(rules.stream().map(p -> new Pace(p.calls(), p.window())).toList(),
                            Duration.ofMillis(minIntervalMs), burst));
            alignedDecided += decide(sliding, now, before, cost).equals(d) ? 0 : 1;
        }
        samePass(pass, before, rules, calls, windowMs, adaptive, cutTo, cutAt, marginMs, minIntervalMs, burst, cost,
                where);
        assertEquals(d.notBefore(), r.due(), "when a send is due: " + where);
        if (r.grant().isPresent()) {
            assertEquals(now, r.grant().get().grantedAt());
            assertTrue(d.sendNow(), "granted, but the Java rules say wait until " + d.notBefore() + ": " + where);
            assertEquals(0, before.ahead(callClass), "granted past a call waiting ahead: " + where);
            assertEquals(SlotRule.blockTurn(counted, Beat.next(d.notBefore(), now, counted.gap(), counted.burst(),
                    cost), Optional.of(now)), after.slot(), "the beat moved: " + where);
            assertEquals(before.seq() + cost.units(), after.seq(), "a send per unit: " + where);
            assertEquals(consume ? "DONE at its grant" : "GRANTED", written, "the call written: " + where);
            consumedGranted += consume ? 1 : 0;
            costlyGranted += cost.isOne() ? 0 : 1;
            oneRuleGranted += oneRuleForm ? 1 : 0;
            return true;
        }
        assertEquals(before.seq(), after.seq(), "a refused try writes no send: " + where);
        assertEquals(before.slot(), after.slot(), where);
        if (before.ahead(callClass) == 0) {
            assertTrue(!d.sendNow(), "refused, but the Java rules say send now: " + where);
            assertEquals(Duration.between(now, d.notBefore()), r.retryAfter(), "retry when the slot is due: " + where);
        } else {
            assertTrue(r.retryAfter().compareTo(counted.gap().multipliedBy(before.ahead(callClass))) >= 0,
                    "a gap for each call ahead at least: " + where);
        }
        return false;
    }

    /** What the grant pass did on the state: its pass, the first send's slot, the slot row after it. */
    private record Pass(GrantPass pass, Instant firstSlot, State after) {
    }

    /** The grant pass on the state, with one call of {@code callClass} waiting besides any there. */
    private static Pass pass(String limit, CallClass callClass, Cost cost, State before) throws SQLException {
        sql("INSERT INTO gate_call (limit_name, call_class, program, owner, state, lease_ms, lease_expires_at, cost) "
                + "VALUES (?, ?, 'tester', 'program:tester', 'WAITING', 30000, clock_timestamp() + interval '30 s', ?)",
                limit, callClass.rank(), cost.units());
        GrantPass pass = Granter.grantDue(c, limit);
        State after = state(limit);
        Instant firstSlot = null;
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT slot_at FROM gate_send WHERE limit_name = ? AND seq = ?")) {
            ps.setString(1, limit);
            ps.setLong(2, before.seq() + 1);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    firstSlot = Times.get(rs, "slot_at");
                }
            }
        }
        return new Pass(pass, firstSlot, after);
    }

    /**
     * The grant pass decided as the rules do, at its clock: it grants only when a send is due, records the send at
     * the slot the rules name, and, when it grants nothing, names the moment the rules say a send is due.
     */
    private static void samePass(Pass p, State before, List<Pace> declared, int calls, long windowMs,
                                 boolean adaptive, Integer cutTo, Instant cutAt, Long marginMs, long minIntervalMs,
                                 int burst, Cost cost, String where) {
        GrantPass pass = p.pass();
        Instant at = pass.grants().isEmpty() ? pass.dbNow() : pass.grants().get(0).grantedAt();
        List<Pace> rules = new ArrayList<>(declared);
        if (adaptive) {
            rules.set(0, rules.get(0).withCalls(new AdaptiveRate(calls, Duration.ofMillis(windowMs))
                    .effective(cutTo, cutAt, at)));
        }
        LimitRules counted = ReceiptMargin.ofNullable(marginMs == null ? null : Duration.ofMillis(marginMs))
                .widen(new LimitRules(rules, Duration.ofMillis(minIntervalMs), burst));
        SlotDecision d = decide(counted, at, before, cost);
        if (pass.grants().isEmpty()) {
            assertTrue(!d.sendNow(), "the pass granted nothing, but the Java rules say send now: " + where);
            // a costly head: when not even one unit fits, the pass looks again when one does (it has not chosen its
            // head yet); else when all of the head's units fit
            SlotDecision one = decide(counted, at, before, Cost.ONE);
            assertTrue(pass.nextDueAt().equals(Optional.of(d.notBefore()))
                            || !one.sendNow() && pass.nextDueAt().equals(Optional.of(one.notBefore())),
                    "the pass's next due: " + pass.nextDueAt() + ", rules " + d.notBefore() + ": " + where);
            assertEquals(before.seq(), p.after().seq(), "a pass without a grant writes no send: " + where);
            return;
        }
        passesGranting++;
        costlyPassesGranting += cost.isOne() ? 0 : 1;
        assertTrue(d.sendNow(), "the pass granted, but the Java rules say wait until " + d.notBefore() + ": " + where);
        assertEquals(d.notBefore(), p.firstSlot(), "the pass's first send is recorded at the rules' slot: " + where);
        assertEquals(before.seq() + pass.grants().size() - 1 + cost.units(), p.after().seq(),
                "a send per unit: " + where);
        if (pass.grants().size() == 1 && burst == 1) {
            Instant moved = SlotRule.blockTurn(counted, Beat.next(d.notBefore(), at, counted.gap(), counted.burst(),
                    cost), Optional.of(at));
            // the pass decides whether the beat slipped more than a gap at its probe's clock, a few ms before the
            // grant's own: within a few ms of that boundary either answer is the rules'
            Duration slip = Duration.between(d.notBefore(), at);
            boolean boundary = slip.minus(counted.gap()).abs().compareTo(Duration.ofMillis(50)) < 0;
            Instant kept = SlotRule.blockTurn(counted, Beat.next(d.notBefore(), d.notBefore(), counted.gap(),
                    counted.burst(), cost), Optional.of(at));
            assertTrue(p.after().slot().equals(moved) || boundary && p.after().slot().equals(kept),
                    "the pass moved the beat as the rules do: to " + p.after().slot() + ", rules " + moved + ": "
                            + where);
        }
    }

    private static SlotDecision decide(LimitRules counted, Instant now, State s, Cost cost) {
        List<Optional<Instant>> nth = new ArrayList<>();
        for (Pace p : counted.rules()) {
            long unit = cost.unitToLeave(s.seq(), p.calls()); // numbered from 1
            // a pruned unit: as sent when the oldest kept one after it was (never room the log cannot see)
            java.util.Map.Entry<Long, Instant> kept = unit >= 1 ? s.sends().ceilingEntry(unit) : null;
            nth.add(kept == null ? Optional.empty() : Optional.of(kept.getValue()));
        }
        Optional<Instant> last = Optional.ofNullable(s.sends().get(s.seq()));
        return SlotRule.decide(counted, now, s.slot(), nth, last, SlotLock.held(s.pausedUntil(), s.vendor(), s.seq(),
                cost, now));
    }

    /** The limit's slot row, its sends in order and the waiting calls' classes. */
    private record State(Instant slot, Instant pausedUntil, long seq, java.util.TreeMap<Long, Instant> sends,
                         List<Integer> waiting,
                         Instant cutAt, dev.gate.rules.VendorCount vendor) {
        long ahead(CallClass callClass) {
            return waiting.stream().filter(w -> w <= callClass.rank()).count();
        }
    }

    private static State state(String limit) throws SQLException {
        Instant slot;
        Instant paused;
        long seq;
        Instant cutAt;
        dev.gate.rules.VendorCount vendor;
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT next_slot_at, paused_until, send_seq, adaptive_cut_at, vendor_after_unit, vendor_remaining, "
                        + "vendor_reset_at FROM gate_slot WHERE limit_name = ?")) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                slot = Times.get(rs, "next_slot_at");
                paused = Times.get(rs, "paused_until");
                seq = rs.getLong("send_seq");
                cutAt = Times.get(rs, "adaptive_cut_at");
                vendor = SlotLock.vendor(rs);
            }
        }
        java.util.TreeMap<Long, Instant> sends = new java.util.TreeMap<>(); // by number: the pruned ones absent
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT seq, sent_at FROM gate_send WHERE limit_name = ? ORDER BY seq")) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    sends.put(rs.getLong("seq"), Times.get(rs, "sent_at"));
                }
            }
        }
        List<Integer> waiting = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT call_class FROM gate_call WHERE limit_name = ? AND state = 'WAITING'")) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    waiting.add(rs.getInt(1));
                }
            }
        }
        return new State(slot, paused, seq, sends, waiting, cutAt, vendor);
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
