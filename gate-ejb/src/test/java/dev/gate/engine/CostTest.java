package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.InvalidRequestException;
import dev.gate.api.LimitSpec;
import dev.gate.api.Permit;
import dev.gate.rules.Cost;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Calls that cost more than one unit of the quota (CallOptions.withCost), on two gate copies sharing one line: every
 * window counts units, by the send log and by what a vendor receives, and a costly call keeps its place in its class.
 */
class CostTest extends OnTwoCopies {

    /** A vendor in this process: what it received, when (its own clock) and how many units each call cost. */
    private record Receipt(long nanos, int cost) {
    }

    @Test
    void aWindowOfTenUnitsHoldsUnderMixedCostsFromTwoCopiesByGrantAndByReceipt() throws Exception {
        String limit = "units";
        Duration window = Duration.ofSeconds(1);
        // the margin covers the time from a grant to the vendor's receipt (wake-up, a copy hearing of its grant, on a
        // busy 2-core box)
        copies.limit(limit, 10, window, "receipt_margin_ms", 200L);
        List<Receipt> receipts = Collections.synchronizedList(new ArrayList<>());
        ExecutorService callers = Executors.newFixedThreadPool(8);
        List<Future<Integer>> units = new ArrayList<>();
        Instant stop = Instant.now().plusSeconds(4);
        for (int t = 0; t < 8; t++) {
            Engine copy = t % 2 == 0 ? a : b;
            Random random = new Random(t);
            CallClass callClass = t < 4 ? CallClass.SCHEDULED : CallClass.BACKFILL;
            units.add(callers.submit(() -> {
                int sent = 0;
                while (Instant.now().isBefore(stop)) {
                    int cost = 1 + random.nextInt(4); // 1..4 units
                    Permit p = copy.callers().acquire(limit, callClass, Duration.ofSeconds(20), "worker",
                            CallOptions.NONE.withCost(cost));
                    receipts.add(new Receipt(System.nanoTime(), cost)); // the vendor call
                    copy.callers().complete(p.callId(), 200);
                    sent += cost;
                }
                return sent;
            }));
        }
        int total = 0;
        for (Future<Integer> f : units) {
            total += f.get();
        }
        callers.shutdown();
        List<Instant> sends = copies.sends(limit);
        assertEquals(total, sends.size(), "one send row per unit");
        int fullestByGrant = GateCopies.fullestWindow(sends, window);
        int fullestByReceipt = fullestByReceipt(receipts, window);
        System.out.println("cost: " + receipts.size() + " calls of 1-4 units (" + total + " units) from two copies "
                + "over 4 s at 10 units per 1 s (200 ms margin); fullest window by grant " + fullestByGrant + ", by receipt "
                + fullestByReceipt);
        assertTrue(total >= 24, "the callers kept the line busy: " + total + " units");
        assertTrue(fullestByGrant <= 10, "a window held " + fullestByGrant + " units by the send log");
        assertTrue(fullestByReceipt <= 10, "a window held " + fullestByReceipt + " units by the vendor's receipts");
    }

    @Test
    void aCostFiveCallAtTheHeadGoesBeforeLaterCostOneCallsOfItsClass() throws Exception {
        String limit = "head";
        copies.limit(limit, 10, Duration.ofSeconds(2));
        // eight units of the window taken: two are left, enough for the cheap calls but not for the costly head
        Permit first = a.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer",
                CallOptions.NONE.withCost(8));
        a.callers().complete(first.callId(), 200);
        Ticket costly = a.callers().join(limit, CallClass.SCHEDULED, "bulk", CallOptions.NONE.withCost(5));
        List<Ticket> cheap = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            cheap.add(b.callers().join(limit, CallClass.SCHEDULED, "single", CallOptions.NONE));
        }
        Permit big = a.callers().await(costly, Duration.ofSeconds(10));
        List<Permit> small = new ArrayList<>();
        for (Ticket t : cheap) {
            small.add(b.callers().await(t, Duration.ofSeconds(10)));
        }
        for (Permit p : small) {
            assertTrue(p.grantedAt().isAfter(big.grantedAt()), "a cost-1 call that came later went at "
                    + p.grantedAt() + ", before the cost-5 head at " + big.grantedAt());
        }
        // the head waited for its five units: the first send's eight leave the window 2 s after it
        assertTrue(!big.grantedAt().isBefore(first.grantedAt().plus(Duration.ofSeconds(2))),
                "the cost-5 call went at " + big.grantedAt() + ", while the window still held the first 8 units");
        assertEquals(8 + 5 + 3, copies.sends(limit).size());
    }

    @Test
    void aCostAboveTheSmallestRuleIsRefusedNamingTheFieldAndNothingJoins() throws Exception {
        String limit = "capped";
        copies.limit(limit, 10, Duration.ofSeconds(1));
        copies.sql("INSERT INTO gate_limit_rule (limit_name, calls, window_ms) VALUES (?, 6, 100)", limit);
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> a.callers().acquire(limit,
                CallClass.SCHEDULED, Duration.ofSeconds(1), "bulk", CallOptions.NONE.withCost(7)));
        assertTrue(e.getMessage().startsWith("cost: must be 1 to 6"), e.getMessage());
        assertThrows(InvalidRequestException.class, () -> b.callers().tryNow(limit, CallClass.SCHEDULED, "bulk",
                CallOptions.NONE.withCost(7)));
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ?", limit));
        Permit six = a.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(1), "bulk",
                CallOptions.NONE.withCost(6));
        assertEquals(6, copies.count("SELECT count(*) FROM gate_send WHERE call_id = ?", six.callId()));
    }

    @Test
    void theLargestCostIsGrantedWithinTheTimeoutsAndTheLimitKeepsGrantingWhileACostlierCallIsRefused() throws Exception {
        String limit = "bulk";
        copies.limit(limit, 400_000, Duration.ofSeconds(5)); // a gap of 12.5 µs: the largest cost is due at once
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> a.callers().acquire(limit,
                CallClass.SCHEDULED, Duration.ofSeconds(1), "bulk", CallOptions.NONE.withCost(Cost.MOST + 1)));
        assertTrue(e.getMessage().startsWith("cost: must be 1 to " + Cost.MOST), e.getMessage());
        assertThrows(InvalidRequestException.class, () -> b.callers().tryNow(limit, CallClass.SCHEDULED, "bulk",
                CallOptions.NONE.withCost(400_000)));
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ?", limit), "nothing joined");
        // the largest cost, by the line (a call waiting behind it) and by a try on the free line
        Permit first = a.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(10), "bulk",
                CallOptions.NONE.withCost(Cost.MOST));
        Permit behind = b.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(10), "bulk",
                CallOptions.NONE);
        dev.gate.api.Attempt tried = b.callers().tryNow(limit, CallClass.SCHEDULED, "bulk",
                CallOptions.NONE.withCost(Cost.MOST));
        Instant until = Instant.now().plusSeconds(10);
        while (!tried.isGranted() && Instant.now().isBefore(until)) {
            Thread.sleep(Math.max(1, tried.retryAfter().toMillis()));
            tried = b.callers().tryNow(limit, CallClass.SCHEDULED, "bulk", CallOptions.NONE.withCost(Cost.MOST));
        }
        assertTrue(tried.isGranted(), "a try of the largest cost was granted");
        Permit after = a.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(10), "bulk",
                CallOptions.NONE);
        assertEquals(Cost.MOST, copies.count("SELECT count(*) FROM gate_send WHERE call_id = ?", first.callId()));
        assertEquals(2 * Cost.MOST + 2, copies.sends(limit).size(), "each unit logged, and the limit granted on");
        assertTrue(!behind.grantedAt().isBefore(first.grantedAt()) && !after.grantedAt().isBefore(first.grantedAt()));
    }

    @Test
    void aChangeBelowAWaitingCallsCostTakesItOutOfTheLineAndTellsItsCallerInsteadOfOverfillingTheWindow()
            throws Exception {
        // found by the promise checker (seed 43054): re-paced to 1 call, a waiting call of 2 units went once the
        // window was empty, and the window held 2
        String limit = "shrunk";
        copies.limit(limit, 5, Duration.ofSeconds(1));
        copies.logSends(limit, 5, Duration.ofMillis(200), Duration.ZERO); // the window is full: the call waits
        Ticket costly = b.callers().join(limit, CallClass.SCHEDULED, "bulk", CallOptions.NONE.withCost(4));
        Ticket cheap = b.callers().join(limit, CallClass.SCHEDULED, "bulk", CallOptions.NONE);
        b.limits().rePace(limit, dev.gate.rules.Pace.of(2, 1000), "ops"); // on its caller's copy: told why
        java.util.concurrent.ExecutionException ended = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> costly.granted().get(5, java.util.concurrent.TimeUnit.SECONDS));
        assertTrue(ended.getCause() instanceof dev.gate.api.CallEndedException, String.valueOf(ended.getCause()));
        assertTrue(ended.getCause().getMessage().contains("cost"), ended.getCause().getMessage());
        b.callers().await(cheap, Duration.ofSeconds(5)); // the line goes on behind it
        assertEquals("CANCELLED", copies.state(costly.callId()));
        assertEquals(0, copies.count("SELECT count(*) FROM gate_send WHERE call_id = ?", costly.callId()));
        // a re-declaration on the other copy whose more rule is smaller than a waiting call's cost does the same
        copies.logSends(limit, 2, Duration.ofMillis(100), Duration.ZERO);
        Ticket three = b.callers().join(limit, CallClass.SCHEDULED, "bulk", CallOptions.NONE.withCost(2));
        a.limits().put(limit, LimitSpec.of(2, Duration.ofSeconds(1))
                .withMoreRules(List.of(new LimitSpec.Rule(1, Duration.ofMillis(500)))));
        assertThrows(java.util.concurrent.ExecutionException.class,
                () -> three.granted().get(5, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals("CANCELLED", copies.state(three.callId()));
    }

    @Test
    void withProgramsTakingTurnsOrTheStarvationGuardACostlyHeadWaitsForItsUnitsAndTheWindowHolds() throws Exception {
        a.limits().put("turns", LimitSpec.of(6, Duration.ofSeconds(1)).withFairPrograms(true));
        a.limits().put("guarded", LimitSpec.of(6, Duration.ofSeconds(1))
                .withAging(Duration.ofMillis(300), CallClass.SCHEDULED));
        for (String limit : List.of("turns", "guarded")) {
            List<Ticket> tickets = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                // a bulk program's calls of 4 units beside a single program's of 1, from both copies
                tickets.add(a.callers().join(limit, CallClass.BACKFILL, "bulk", CallOptions.NONE.withCost(4)));
                tickets.add(b.callers().join(limit, i % 2 == 0 ? CallClass.SCHEDULED : CallClass.BACKFILL,
                        "single", CallOptions.NONE));
            }
            for (int i = 0; i < tickets.size(); i++) {
                (i % 2 == 0 ? a : b).callers().await(tickets.get(i), Duration.ofSeconds(30));
            }
            List<Instant> sends = copies.sends(limit);
            assertEquals(6 * 4 + 6, sends.size(), limit + ": a send per unit");
            int fullest = GateCopies.fullestWindow(sends, Duration.ofSeconds(1));
            System.out.println("cost: " + limit + ": 6 calls of 4 units and 6 of 1, fullest window " + fullest
                    + " of 6 units");
            assertTrue(fullest <= 6, limit + ": a window held " + fullest + " units");
        }
    }

    @Test
    void aLimitMadeKeyedUnderAParentTakesItsCostlierWaitingCallOutOfTheLineInsteadOfCountingItAsOneUnit()
            throws Exception {
        // on the old code the call of 5 stayed and was granted later: the parent's window counted 1 unit of its 5
        copies.limit("vendor", 100, Duration.ofSeconds(1));
        String limit = "becomes-keyed";
        copies.limit(limit, 5, Duration.ofSeconds(1));
        copies.logSends(limit, 5, Duration.ofMillis(200), Duration.ZERO); // the window is full: the calls wait
        Ticket costly = b.callers().join(limit, CallClass.SCHEDULED, "bulk", CallOptions.NONE.withCost(5));
        Ticket cheap = b.callers().join(limit, CallClass.SCHEDULED, "bulk", CallOptions.NONE);
        a.limits().put(limit, LimitSpec.of(5, Duration.ofSeconds(1)).withKeyed(true).withParent("vendor"));
        java.util.concurrent.ExecutionException ended = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> costly.granted().get(5, java.util.concurrent.TimeUnit.SECONDS));
        assertTrue(ended.getCause() instanceof dev.gate.api.CallEndedException, String.valueOf(ended.getCause()));
        assertEquals("CANCELLED", copies.state(costly.callId()));
        assertEquals(0, copies.count("SELECT count(*) FROM gate_send WHERE call_id = ?", costly.callId()),
                "no unit of it sent, by its limit or its parent");
        b.callers().await(cheap, Duration.ofSeconds(5)); // a call of one unit goes on, counted by the parent too
        assertEquals(1, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = 'vendor' AND call_id = ?",
                cheap.callId()));
        assertEquals(1, copies.count("SELECT count(*) FROM gate_action WHERE action = 'cancel-call' "
                + "AND target = 'limit " + limit + "'"), "the cancel recorded");
    }

    @Test
    void aKeyedLimitTakesOnlyCallsOfOneUnitForNow() throws Exception {
        a.limits().put("per-user", LimitSpec.of(5, Duration.ofSeconds(1)).withKeyed(true));
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> a.callers().acquire("per-user",
                CallClass.SCHEDULED, Duration.ofSeconds(1), "web", CallOptions.NONE.withLimitKey("u1").withCost(2)));
        assertTrue(e.getMessage().startsWith("cost: a call on a keyed limit costs 1 unit"), e.getMessage());
        a.callers().acquire("per-user", CallClass.SCHEDULED, Duration.ofSeconds(1), "web",
                CallOptions.NONE.withLimitKey("u1"));
    }

    /** The most units any window (t - window, t] of the vendor's clock received. */
    private static int fullestByReceipt(List<Receipt> receipts, Duration window) {
        List<Receipt> sorted = new ArrayList<>(receipts);
        sorted.sort((x, y) -> Long.compare(x.nanos(), y.nanos()));
        int fullest = 0;
        int inWindow = 0;
        int from = 0;
        for (Receipt r : sorted) {
            inWindow += r.cost();
            while (sorted.get(from).nanos() <= r.nanos() - window.toNanos()) {
                inWindow -= sorted.get(from++).cost();
            }
            fullest = Math.max(fullest, inWindow);
        }
        return fullest;
    }
}
