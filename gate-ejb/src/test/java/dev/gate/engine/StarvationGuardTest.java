package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.LimitSpec;
import dev.gate.domain.Grant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The starvation guard, on the real clock: under a constant flood of INTERACTIVE calls, a BACKFILL call on a limit
 * with aging (after T, ranked as INTERACTIVE) is granted within T and about one gap, marked as the guard's grant;
 * without the guard, strict order exactly as before: it waits while any INTERACTIVE call does.
 */
class StarvationGuardTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    private static final Duration AFTER = Duration.ofSeconds(1);
    private static final Duration GAP = Duration.ofMillis(50); // 20 per second (the margin adds 2.5 ms)

    @Test
    void underAnInteractiveFloodAnAgedBackfillCallGoesWithinItsAgingTimePlusAGap() throws Exception {
        TallyTest.Heard heard = new TallyTest.Heard();
        Engine gate = copies.start("guarded", heard);
        String limit = "guarded";
        gate.limits().put(limit, LimitSpec.of(20, Duration.ofSeconds(1)).withAging(AFTER, CallClass.INTERACTIVE));

        try (Flood flood = new Flood(copies, gate, limit, "people", CallClass.INTERACTIVE, 10)) {
            flood.start();
            List<Long> backfill = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Thread.sleep(400);
                backfill.add(gate.programs().submit("history", limit, CallClass.BACKFILL, CallOptions.NONE, null)
                        .call().id());
            }
            for (long id : backfill) {
                GateCopies.await("backfill call " + id + " granted", AFTER.multipliedBy(5),
                        () -> state(id).equals("GRANTED"));
            }
            assertTrue(flood.waiting() > 0, "the flood kept INTERACTIVE calls waiting throughout");
            for (long id : backfill) {
                long waited = copies.count("SELECT (extract(epoch FROM granted_at - enqueued_at) * 1000)::bigint "
                        + "FROM gate_call WHERE id = ?", id);
                System.out.println("aged BACKFILL call " + id + " waited " + waited + " ms (T " + AFTER.toMillis()
                        + " ms, gap " + GAP.toMillis() + " ms)");
                // T plus one gap, and 100 ms for the real clock: the slot loop's wake-up is never exactly on time
                assertTrue(waited >= AFTER.toMillis() && waited <= AFTER.plus(GAP).toMillis() + 100,
                        "call " + id + " waited " + waited + " ms");
                assertEquals(1, copies.count("SELECT count(*) FROM gate_call WHERE id = ? AND aged", id),
                        "marked as the guard's grant");
            }
        }
        dev.gate.api.LimitStatus status = gate.limits().status(limit).orElseThrow();
        assertEquals(3, status.getAgedLastHour(), "operators see the guard's grants apart");
        assertEquals(AFTER.toMillis(), status.getAgingAfterMs());
        assertEquals("INTERACTIVE", status.getAgingUpTo());
        List<Grant> aged = heard.grants.stream().filter(Grant::aged).toList();
        assertEquals(3, aged.size(), "the guard's grants are told apart: " + aged);
        assertTrue(aged.stream().allMatch(g -> g.callClass() == CallClass.BACKFILL));
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND call_class = 0 AND aged",
                limit), "INTERACTIVE calls are never lifted: they are the top class");
        // inside the class, first come first served still
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call a JOIN gate_call b ON a.limit_name = b.limit_name "
                + "AND a.call_class = b.call_class AND a.enqueued_at < b.enqueued_at AND a.granted_at > b.granted_at "
                + "WHERE a.limit_name = ?", limit), "FIFO inside a class");
    }

    @Test
    void withoutTheGuardTheStrictOrderStands() throws Exception {
        Engine gate = copies.start("strict");
        String limit = "strict";
        gate.limits().put(limit, LimitSpec.of(20, Duration.ofSeconds(1)));
        long backfill;
        try (Flood flood = new Flood(copies, gate, limit, "people", CallClass.INTERACTIVE, 10)) {
            flood.start();
            Thread.sleep(200);
            backfill = gate.programs().submit("history", limit, CallClass.BACKFILL, CallOptions.NONE, null).call().id();
            long before = grantedInteractive(limit);
            GateCopies.await("40 INTERACTIVE grants after the BACKFILL call joined", Duration.ofSeconds(10),
                    () -> grantedInteractive(limit) >= before + 40);
            assertEquals("WAITING", state(backfill), "strict order: BACKFILL waits while a person does (2 s, 2 T)");
        }
        GateCopies.await("the BACKFILL call granted once the flood ends", Duration.ofSeconds(5),
                () -> state(backfill).equals("GRANTED"));
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND aged", limit));
    }

    private String state(long id) {
        return copies.state(id);
    }

    private long grantedInteractive(String limit) {
        return count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND call_class = 0 "
                + "AND granted_at IS NOT NULL", limit);
    }

    private long count(String sql, Object... args) {
        try {
            return copies.count(sql, args);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
