package dev.gate.engine;

import dev.gate.api.Attempt;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.GateException;
import dev.gate.api.LimitSpec;
import dev.gate.api.UnknownLimitException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A consuming try (an inbound limit: the call is the request itself): granted and ended in one statement, by the
 * try's rules and into the same send log, DONE at its grant with no lease to run out and no outcome to report.
 */
class TryConsumeTest extends OnOneCopy {

    @Test
    void aConsumedCallEndsAtItsGrantAndCountsInTheWindowAsAnyGrantDoes() throws Exception {
        String limit = "per-user";
        gate.limits().put(limit, LimitSpec.of(3, Duration.ofMillis(1500)));
        Attempt first = consume(limit, CallClass.INTERACTIVE, CallOptions.NONE);
        assertTrue(first.isGranted());
        Attempt second = consume(limit, CallClass.INTERACTIVE, CallOptions.NONE);
        assertTrue(second.isGranted(), second.toString());
        Attempt plain = null;
        for (long until = System.nanoTime() + Duration.ofSeconds(3).toNanos(); System.nanoTime() < until
                && (plain == null || !plain.isGranted()); ) {
            plain = gate.callers().tryNow(limit, CallClass.INTERACTIVE, "api", CallOptions.NONE);
            Thread.sleep(Math.max(1, plain.retryAfter().toMillis()));
        }
        assertTrue(plain.isGranted(), "a plain try takes the third slot, on the beat the consumed ones moved");
        Attempt fourth = gate.callers().tryConsume(limit, CallClass.INTERACTIVE, "api", CallOptions.NONE);
        assertFalse(fourth.isGranted(), "the third slot just went: " + fourth);
        assertTrue(fourth.retryAfter().compareTo(Duration.ZERO) > 0, fourth.toString());

        long id = first.permit().callId();
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND state <> 'GRANTED'",
                limit), "a consume without a key writes no call row; the plain try's grant waits for its outcome");
        assertEquals(1, copies.count("SELECT count(*) FROM gate_send WHERE call_id = ? AND program = 'api' "
                + "AND call_class = 0 AND owner IS NOT NULL", id), "its send records who consumed, and its class");
        assertEquals(3, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit),
                "one send each, in the one send log");
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND state = 'WAITING'",
                limit), "a refused one leaves nothing in the line");
        GateException report = assertThrows(GateException.class, () -> gate.callers().complete(id, 200));
        assertTrue(report.getMessage().contains("DONE"), "nothing to report: " + report.getMessage());
        assertThrows(UnknownLimitException.class,
                () -> gate.callers().tryConsume("no-such-limit", CallClass.INTERACTIVE, "api", CallOptions.NONE));
        assertThrows(IllegalArgumentException.class, () -> gate.callers().tryConsume(limit, CallClass.INTERACTIVE,
                "api", CallOptions.NONE.withDedupeKey("k")));
        assertThrows(IllegalArgumentException.class, () -> gate.callers().tryConsume(limit, CallClass.INTERACTIVE,
                "api", CallOptions.NONE.withLease(Duration.ofSeconds(30))), "it ends at its grant: no lease");
    }

    /**
     * A one-rule limit's tries take the one-rule form of the statement; a rule added later holds the very next try (the
     * form finds the limit of two rules and leaves it to the statement for any limit), and taken away again, the limit
     * is of one rule once more.
     */
    @Test
    void aRuleAddedToAOneRuleLimitHoldsItsNextConsumeAndTakenAwayLetsThemGo() throws Exception {
        String limit = "changes-shape";
        LimitSpec oneRule = LimitSpec.of(100, Duration.ofSeconds(20)).withBurst(100);
        gate.limits().put(limit, oneRule);
        for (int i = 0; i < 3; i++) {
            assertTrue(gate.callers().tryConsume(limit, CallClass.MANUAL, "api", CallOptions.NONE).isGranted());
        }
        gate.limits().put(limit, oneRule.withMoreRules(List.of(new LimitSpec.Rule(3, Duration.ofSeconds(20)))));
        Attempt fourth = gate.callers().tryConsume(limit, CallClass.MANUAL, "api", CallOptions.NONE);
        assertFalse(fourth.isGranted(), "three in 20 s: the fourth waits");
        assertTrue(fourth.retryAfter().compareTo(Duration.ofSeconds(15)) > 0, "for the window: " + fourth);
        assertEquals(3, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit));
        gate.limits().put(limit, oneRule);
        assertTrue(gate.callers().tryConsume(limit, CallClass.MANUAL, "api", CallOptions.NONE).isGranted(),
                "the rule taken away");
    }

    @Test
    void aConsumingTryTakesItsCostAndNeverJumpsACallOfItsClassOrHigherThatWaits() throws Exception {
        String limit = "shared-inbound";
        gate.limits().put(limit, LimitSpec.of(10, Duration.ofSeconds(1)).withReceiptMargin(Duration.ZERO));
        Attempt costly = gate.callers().tryConsume(limit, CallClass.SCHEDULED, "api", CallOptions.NONE.withCost(3));
        assertTrue(costly.isGranted());
        assertEquals(3, copies.count("SELECT count(*) FROM gate_send WHERE call_id = ?", costly.permit().callId()),
                "a unit each");
        ProgramCalls.Submitted manual = copies.waitingForGood(gate, limit, CallClass.MANUAL);
        Attempt behind = gate.callers().tryConsume(limit, CallClass.SCHEDULED, "api", CallOptions.NONE);
        assertFalse(behind.isGranted(), "a MANUAL call waits: a SCHEDULED consuming try is behind it");
        assertTrue(behind.retryAfter().compareTo(Duration.ofMillis(100)) >= 0, "a gap for the call ahead: " + behind);
        assertTrue(gate.callers().tryConsume(limit, CallClass.INTERACTIVE, "api", CallOptions.NONE).isGranted(),
                "an INTERACTIVE one goes ahead of it");
        assertEquals("WAITING", copies.state(manual.call().id()));
    }

    @Test
    void aConsumingTrySentAgainWithItsKeyGetsItsConsumptionNeverASecond() throws Exception {
        String limit = "keyed-consume";
        gate.limits().put(limit, LimitSpec.of(2, Duration.ofMinutes(1)));
        ProgramCalls.Tried first = gate.programs().tryNow("inbound", limit, CallClass.INTERACTIVE, CallOptions.NONE,
                "k-1", true);
        ProgramCalls.Tried again = gate.programs().tryNow("inbound", limit, CallClass.INTERACTIVE, CallOptions.NONE,
                "k-1", true);
        assertTrue(first.attempt().isGranted() && !first.repeated());
        assertTrue(again.attempt().isGranted() && again.repeated(), "the answer the lost one carried");
        assertEquals(first.attempt().permit().callId(), again.attempt().permit().callId());
        assertEquals(1, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit), "one slot taken");
        assertEquals("DONE", copies.state(first.attempt().permit().callId()));
    }

    @Test
    void aUsersKeyUnderAParentConsumesASlotOfBoth() throws Exception {
        gate.limits().put("vendor", LimitSpec.of(100, Duration.ofSeconds(1)).withBurst(100));
        gate.limits().put("users", LimitSpec.of(2, Duration.ofMinutes(1)).withKeyed(true).withParent("vendor"));
        CallOptions alice = CallOptions.NONE.withLimitKey("alice");
        CallOptions bob = CallOptions.NONE.withLimitKey("bob");
        assertTrue(consume("users", alice).isGranted());
        Attempt again = gate.callers().tryConsume("users", CallClass.INTERACTIVE, "api", alice);
        assertFalse(again.isGranted(), "alice's next is half a minute away");
        assertTrue(again.retryAfter().compareTo(Duration.ofSeconds(25)) > 0, again.toString());
        assertTrue(consume("users", bob).isGranted(), "bob has his own");
        assertEquals(2, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = 'vendor'"),
                "each took one of the parent's sends too");
        assertEquals(2, copies.count("SELECT count(*) FROM gate_send WHERE limit_name LIKE 'users~%' "
                + "AND owner IS NOT NULL"), "each key's send records its consume");
        assertEquals(0, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = 'vendor' "
                + "AND owner IS NOT NULL"), "the parent's copy is not a second record of it");
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE limit_name LIKE 'users%'"));
    }

    @Test
    void aConsumeWithoutAKeyIsReadBackByItsIdFromItsSendsAndOnlyByItsOwner() throws Exception {
        String limit = "read-back";
        gate.limits().put(limit, LimitSpec.of(10, Duration.ofSeconds(1)).withBurst(10));
        long before = gate.programs().submit("inbound", limit, CallClass.BACKFILL, CallOptions.NONE, null).call().id();
        ProgramCalls.Tried consumed = gate.programs().tryNow("inbound", limit, CallClass.MANUAL,
                CallOptions.NONE.withCost(2), null, true);
        assertTrue(consumed.attempt().isGranted(), consumed.toString());
        long id = consumed.attempt().permit().callId();
        long after = gate.programs().submit("inbound", limit, CallClass.BACKFILL, CallOptions.NONE, null).call().id();
        assertTrue(before < id && id < after, "its id is drawn from the calls' own: " + before + ", " + id + ", "
                + after);
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE id = ?", id), "no call row");
        dev.gate.domain.CallRow row = gate.programs().own("inbound", id).orElseThrow();
        assertEquals(dev.gate.api.CallState.DONE, row.state());
        assertEquals(CallClass.MANUAL, row.callClass());
        assertEquals(limit, row.limit());
        assertEquals(consumed.attempt().permit().grantedAt(), row.grantedAt(), "granted when it was consumed");
        assertEquals(null, row.outcomeStatus());
        assertEquals(row, gate.programs().visible("inbound", id).orElseThrow());
        assertTrue(gate.programs().own("other", id).isEmpty(), "another program's consume is as good as absent");
        assertTrue(gate.programs().visible("other", id).isEmpty());
        assertFalse(gate.programs().outcome("inbound", id, 200, null), "nothing to report on a consume");
        assertFalse(gate.programs().abandon("inbound", id));
        assertFalse(gate.programs().cancel("inbound", id));
    }

    @Test
    void eightCallersOnAFreeButBusySlotAreEachGrantedNeverToldNotNow() throws Exception {
        // a statement that waited for the slot's lock while another grant committed does not see that grant's send
        // (it was refused so, thousands of times a second): the lock is taken first, then the decision reads the log
        String limit = "busy-inbound";
        gate.limits().put(limit, LimitSpec.of(1_000_000, Duration.ofSeconds(1)).withBurst(1_000));
        java.util.concurrent.atomic.AtomicInteger granted = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        long until = System.nanoTime() + Duration.ofMillis(1500).toNanos();
        java.util.List<java.util.concurrent.Future<?>> callers = new java.util.ArrayList<>();
        for (int i = 0; i < 8; i++) {
            callers.add(pool.submit(() -> {
                while (System.nanoTime() < until) {
                    Attempt a = gate.callers().tryConsume(limit, CallClass.INTERACTIVE, "api", CallOptions.NONE);
                    (a.isGranted() ? granted : refused).incrementAndGet();
                }
                return null;
            }));
        }
        for (java.util.concurrent.Future<?> f : callers) {
            f.get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
        pool.shutdown();
        System.out.println("eight callers consuming for 1.5 s: " + granted + " granted, " + refused + " refused");
        assertEquals(0, refused.get(), "the slot was free every time");
        assertEquals(granted.get(), copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit));
    }

    /** A consuming try, tried again while its answer is a short wait (the parent's beat), for at most 3 s. */
    private Attempt consume(String limit, CallOptions options) throws Exception {
        return consume(limit, CallClass.INTERACTIVE, options);
    }

    private Attempt consume(String limit, CallClass callClass, CallOptions options) throws Exception {
        long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        while (true) {
            Attempt a = gate.callers().tryConsume(limit, callClass, "api", options);
            if (a.isGranted() || a.retryAfter().compareTo(Duration.ofSeconds(1)) > 0 || System.nanoTime() > until) {
                return a;
            }
            Thread.sleep(Math.max(1, a.retryAfter().toMillis()));
        }
    }
}
