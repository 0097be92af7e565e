package dev.gate.engine;

import dev.gate.api.Attempt;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.LimitSpec;
import dev.gate.api.SubmissionKeyReusedException;
import dev.gate.api.UnknownLimitException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tries of a limit with no parent that meet are decided together (consumes with a key or without, tries, any cost):
 * one round trip and one commit for the group, in class order (first come first served inside a class), each caller
 * told its own answer and each written as its kind; groups never pass the limit, as a vendor with its own clock counts.
 */
class GroupTryTest extends OnOneCopy {

    @Test
    void aGroupIsDecidedInClassOrderAndEachHearsItsOwnAnswer() throws Exception {
        String limit = "one-a-minute";
        gate.limits().put(limit, LimitSpec.of(1, Duration.ofMinutes(1)));
        List<CallClass> arriving = List.of(CallClass.BACKFILL, CallClass.MANUAL, CallClass.INTERACTIVE,
                CallClass.INTERACTIVE);
        List<Attempt> answers = gathered(limit, arriving);
        assertTrue(answers.get(2).isGranted(), "the first INTERACTIVE to come takes the one slot: " + answers);
        for (int i : new int[] {0, 1, 3}) {
            assertFalse(answers.get(i).isGranted(), arriving.get(i) + " " + i + ": " + answers.get(i));
            assertTrue(answers.get(i).retryAfter().compareTo(Duration.ofSeconds(50)) > 0,
                    "told to come back when the minute's slot is free: " + answers.get(i));
        }
        assertEquals(1, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ? AND call_class = 0 "
                + "AND call_id = ?", limit, answers.get(2).permit().callId()), "its send, with its class");
        assertEquals(1, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit));
    }

    @Test
    void aGroupIsOneTransactionItsSendsInClassOrder() throws Exception {
        String limit = "roomy";
        gate.limits().put(limit, LimitSpec.of(1000, Duration.ofSeconds(1)).withBurst(50));
        List<CallClass> arriving = List.of(CallClass.BACKFILL, CallClass.SCHEDULED, CallClass.INTERACTIVE,
                CallClass.FOLLOW_UP, CallClass.MANUAL, CallClass.INTERACTIVE);
        List<Attempt> answers = gathered(limit, arriving);
        answers.forEach(a -> assertTrue(a.isGranted(), a.toString()));
        assertEquals(1, copies.count("SELECT count(DISTINCT xmin::text) FROM gate_send WHERE limit_name = ?", limit),
                "their sends in one transaction, one commit");
        List<Long> bySend = copies.ids("SELECT call_class FROM gate_send WHERE limit_name = ? ORDER BY seq", limit);
        assertEquals(List.of(0L, 0L, 1L, 2L, 3L, 4L), bySend, "sent in class order");
        assertEquals(answers.get(2).permit().callId(), copies.ids("SELECT call_id FROM gate_send WHERE limit_name = ? "
                + "ORDER BY seq LIMIT 1", limit).get(0), "the first INTERACTIVE to come, first");
        assertThrows(UnknownLimitException.class, () -> gathered("no-such-limit", List.of(CallClass.MANUAL,
                CallClass.MANUAL)).get(0).isGranted());
    }

    @Test
    void triesOfEveryKindGoInOneGroupEachWrittenAsItsKindAKeyMisusedFailsOnlyItsCaller() throws Exception {
        String limit = "mixed";
        gate.limits().put(limit, LimitSpec.of(1000, Duration.ofSeconds(1)).withBurst(50));
        gate.limits().put("elsewhere", LimitSpec.of(10, Duration.ofSeconds(1)));
        ProgramCalls p = gate.programs();
        assertTrue(p.tryNow("api", limit, CallClass.MANUAL, CallOptions.NONE, "first", true).attempt().isGranted());
        assertTrue(p.tryNow("api", "elsewhere", CallClass.MANUAL, CallOptions.NONE, "theirs", true).attempt()
                .isGranted());
        long grouped = gate.tryNow().together().grouped();
        List<java.util.concurrent.Callable<Object>> tries = List.of(
                () -> p.tryNow("api", limit, CallClass.BACKFILL, CallOptions.NONE, null), // a try, its own key
                () -> p.tryNow("api", limit, CallClass.SCHEDULED, CallOptions.NONE, "request-1", true),
                () -> p.tryNow("api", limit, CallClass.MANUAL, CallOptions.NONE, null, true), // no key: no row
                () -> p.tryNow("api", limit, CallClass.MANUAL, CallOptions.NONE, "first", true), // sent again
                () -> p.tryNow("api", limit, CallClass.INTERACTIVE, CallOptions.NONE.withCost(3), "big", true),
                () -> { // the key of a call of another limit: this caller's mistake alone
                    try {
                        return p.tryNow("api", limit, CallClass.INTERACTIVE, CallOptions.NONE, "theirs", true);
                    } catch (SubmissionKeyReusedException e) {
                        return e;
                    }
                });
        List<Object> answers = together(limit, tries);
        assertEquals(grouped + tries.size(), gate.tryNow().together().grouped(), "all six in one group");
        ProgramCalls.Tried tried = (ProgramCalls.Tried) answers.get(0);
        assertTrue(tried.attempt().isGranted() && !tried.repeated());
        assertEquals("GRANTED", copies.state(tried.attempt().permit().callId()), "a try's call, its lease running");
        ProgramCalls.Tried keyed = (ProgramCalls.Tried) answers.get(1);
        assertEquals("DONE", copies.state(keyed.attempt().permit().callId()), "a consume with a key: found again");
        long keyless = ((ProgramCalls.Tried) answers.get(2)).attempt().permit().callId();
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE id = ?", keyless), "no call row");
        assertEquals(1, copies.count("SELECT count(*) FROM gate_send WHERE call_id = ? AND program = 'api' "
                + "AND call_class = 1", keyless), "its send is its record");
        ProgramCalls.Tried again = (ProgramCalls.Tried) answers.get(3);
        assertTrue(again.attempt().isGranted() && again.repeated(), "sent again: its first consumption");
        ProgramCalls.Tried big = (ProgramCalls.Tried) answers.get(4);
        assertEquals(3, copies.count("SELECT count(*) FROM gate_send WHERE call_id = ?",
                big.attempt().permit().callId()), "a cost of 3: three units");
        SubmissionKeyReusedException misused = (SubmissionKeyReusedException) answers.get(5);
        assertTrue(misused.getMessage().contains("'elsewhere'"), misused.getMessage());
        assertEquals(1 + 1 + 1 + 1 + 3, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit),
                "the first consume's send, then one each and the big one's three; nothing for the two found before");
        assertEquals(List.of(0L, 0L, 0L, 1L, 2L, 4L), copies.ids("SELECT coalesce(s.call_class, c.call_class) "
                + "FROM gate_send s LEFT JOIN gate_call c ON c.id = s.call_id WHERE s.limit_name = ? AND s.seq > 1 "
                + "ORDER BY s.seq", limit), "in class order, the big one first; one transaction");
        assertEquals(1, copies.count("SELECT count(DISTINCT xmin::text) FROM gate_send WHERE limit_name = ? "
                + "AND seq > 1", limit), "one commit");
    }

    @Test
    void groupsNeverPassTheLimitAsTheVendorCountsIt() throws Exception {
        String limit = "busy";
        // 20 a second; a margin for the callers' own delay between their grant and their request
        gate.limits().put(limit, LimitSpec.of(20, Duration.ofSeconds(1)).withBurst(20)
                .withReceiptMargin(Duration.ofMillis(200)));
        HistoryVendor vendor = new HistoryVendor();
        vendor.account(limit, List.of(new HistoryVendor.Rule("per second", 20, 1000, null, null)), null);
        AtomicInteger granted = new AtomicInteger();
        AtomicInteger refusedByVendor = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService callers = Executors.newFixedThreadPool(16);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                CallClass callClass = CallClass.values()[t % CallClass.values().length];
                running.add(callers.submit(() -> {
                    while (!stop.get()) {
                        Attempt a = gate.callers().tryConsume(limit, callClass, "api", CallOptions.NONE);
                        if (a.isGranted()) {
                            granted.incrementAndGet();
                            if (vendor.request(limit, a.permit().callId(), 1).status() != 200) {
                                refusedByVendor.incrementAndGet();
                            }
                        }
                    }
                    return null;
                }));
            }
            Thread.sleep(3_000); // the load's length, not a wait for a result
            stop.set(true);
            for (Future<?> f : running) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            callers.shutdownNow();
        }
        assertTrue(gate.tryNow().together().grouped() > 0, "tries met and went in groups");
        assertEquals(0, refusedByVendor.get(), "the vendor refused none of " + granted.get());
        assertTrue(vendor.requestedTwice().isEmpty());
        assertTrue(granted.get() >= 40, "the limit's rate went through: " + granted.get() + " in 3 s");
        assertTrue(granted.get() <= 20 * 4 + 20, "at most 20 a second plus the burst: " + granted.get());
        assertEquals(granted.get(), copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit),
                "one send each in the send log");
    }

    /**
     * A group that meets a slot row another session holds for 2 s (a stalled instance's pass) is told busy, every
     * member, while the lock is still held: nothing granted to nobody, no call row, no send, no pause. Once the lock is
     * free the same group goes, in one commit.
     */
    @Test
    void aGroupOnASlotRowHeldForTwoSecondsIsToldBusyTakesNothingAndGoesOnceItIsFree() throws Exception {
        String limit = "held-group";
        gate.limits().put(limit, LimitSpec.of(1000, Duration.ofSeconds(1)).withBurst(50));
        ProgramCalls p = gate.programs();
        List<java.util.concurrent.Callable<Object>> tries = List.of(
                () -> busyOr(() -> p.tryNow("api", limit, CallClass.BACKFILL, CallOptions.NONE, null)),
                () -> busyOr(() -> p.tryNow("api", limit, CallClass.MANUAL, CallOptions.NONE, "request-1", true)),
                () -> busyOr(() -> p.tryNow("api", limit, CallClass.INTERACTIVE, CallOptions.NONE, null, true)),
                () -> busyOr(() -> p.tryNow("api", limit, CallClass.SCHEDULED, CallOptions.NONE, null, true)));
        long grouped = gate.tryNow().together().grouped();
        long heldUntil;
        try (java.sql.Connection holder = copies.connect()) {
            holder.setAutoCommit(false);
            try (java.sql.PreparedStatement ps = holder.prepareStatement(
                    "SELECT 1 FROM gate_slot WHERE limit_name = ? FOR UPDATE")) {
                ps.setString(1, limit);
                ps.executeQuery().close();
            }
            heldUntil = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            // gathered as one group; the lock is let go only after they answer: a group that waited for the lock
            // would never answer (together's wait ends in a failure)
            List<Object> answers = together(limit, tries);
            for (Object a : answers) {
                assertTrue(a instanceof dev.gate.api.GateBusyException, "told busy: " + a);
                assertFalse(((Exception) a).getMessage().isBlank(), "told why");
            }
            assertFalse(gate.paused(), "a held lock is not an outage");
            while (System.nanoTime() < heldUntil) { // the fault under test lasts its 2 s
                Thread.sleep(50);
            }
            holder.rollback();
        }
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ?", limit),
                "a group told busy wrote no call");
        assertEquals(0, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit), "and no send");
        List<Object> again = together(limit, tries);
        for (Object a : again) {
            assertTrue(a instanceof ProgramCalls.Tried t && t.attempt().isGranted() && !t.repeated(),
                    "granted once the lock is free: " + a);
        }
        assertEquals(grouped + tries.size(), gate.tryNow().together().grouped(), "decided as one group");
        assertEquals(4, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit), "a send each");
        assertEquals(1, copies.count("SELECT count(DISTINCT xmin::text) FROM gate_send WHERE limit_name = ?", limit),
                "in one commit");
    }

    /** {@code t}'s answer, or the busy answer it was told. */
    private static Object busyOr(java.util.concurrent.Callable<Object> t) throws Exception {
        try {
            return t.call();
        } catch (dev.gate.api.GateBusyException busy) {
            return busy;
        }
    }

    /**
     * One consume per class in {@code arriving}, from a thread each, in that order; the group's leader held until all
     * have gathered, then let go: they are decided as one group. Their answers, in that order.
     */
    private List<Attempt> gathered(String limit, List<CallClass> arriving) throws Exception {
        List<java.util.concurrent.Callable<Attempt>> tries = new ArrayList<>();
        for (CallClass callClass : arriving) {
            tries.add(() -> gate.callers().tryConsume(limit, callClass, "api", CallOptions.NONE));
        }
        return together(limit, tries);
    }

    /** {@code tries} of {@code limit}, gathered in that order and decided as one group; their answers, in order. */
    private <T> List<T> together(String limit, List<java.util.concurrent.Callable<T>> tries) throws Exception {
        return Gathering.together(gate.tryNow().together().groups(), limit, tries, () -> { });
    }
}
