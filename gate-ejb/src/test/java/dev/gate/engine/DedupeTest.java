package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.domain.CallRow;
import dev.gate.api.LimitStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Fetch once: submissions with one dedupe key share one call and one send, across copies and programs. */
class DedupeTest extends OnTwoCopies {

    @Test
    void tenConcurrentSubmissionsWithOneDedupeKeyProduceOneSend() throws Exception {
        String limit = "fetch-once";
        copies.limit(limit, 1, Duration.ofSeconds(2));
        a.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE); // the next slot is 2 s away
        ExecutorService pool = Executors.newFixedThreadPool(10);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<ProgramCalls.Submitted>> submissions = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Engine copy = i % 2 == 0 ? a : b;
            String program = "program-" + i;
            Callable<ProgramCalls.Submitted> submit = () -> {
                start.await();
                return copy.programs().submit(program, limit, CallClass.SCHEDULED, CallOptions.NONE, "snapshot-2026-12-01");
            };
            submissions.add(pool.submit(submit));
        }
        start.countDown();
        Set<Long> ids = new HashSet<>();
        int joined = 0;
        for (Future<ProgramCalls.Submitted> f : submissions) {
            ProgramCalls.Submitted j = f.get(20, TimeUnit.SECONDS);
            ids.add(j.call().id());
            joined += j.joined() ? 1 : 0;
        }
        pool.shutdown();
        assertEquals(1, ids.size(), "one call for all ten");
        assertEquals(9, joined);
        long id = ids.iterator().next();
        assertEquals(1, copies.count("SELECT count(*) FROM gate_call WHERE dedupe_key = 'snapshot-2026-12-01'"));

        GateCopies.await("the shared call's grant", Duration.ofSeconds(10),
                () -> count("SELECT count(*) FROM gate_send WHERE call_id = " + id) == 1);
        String program = submitter(id);
        assertTrue(a.programs().outcome(program, id, 200, null) || b.programs().outcome(program, id, 200, null));
        for (int i = 0; i < 10; i++) {
            CallRow seen = (i % 2 == 0 ? a : b).programs().visible("program-" + i, id).orElseThrow();
            assertEquals("DONE", seen.state().name(), "every joiner sees the outcome");
            assertEquals(200, seen.outcomeStatus());
        }
        assertEquals(1, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ? AND call_id = ?", limit, id));
        LimitStatus status = a.limits().status(limit).orElseThrow();
        assertEquals(9, status.getSavedSends(), "the sends saved are counted and shown");

        ProgramCalls.Submitted later = a.programs().submit("program-0", limit, CallClass.SCHEDULED, CallOptions.NONE,
                "snapshot-2026-12-01");
        assertTrue(!later.joined() && later.call().id() != id, "once the call is done, the key starts a new call");
    }

    @Test
    void aJavaCallerThatJoinsWaitsForTheFirstCallersOutcome() throws Exception {
        String limit = "fetch-once-ejb";
        copies.limit(limit, 1, Duration.ofSeconds(2));
        a.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE); // the next slot is 2 s away
        CallOptions once = CallOptions.NONE.withDedupeKey("report-42");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        Future<dev.gate.api.Permit> first = pool.submit(() -> a.callers().acquire(limit, CallClass.MANUAL,
                Duration.ofSeconds(10), "ops", once));
        GateCopies.await("the first submission to join", Duration.ofSeconds(5),
                () -> count("SELECT count(*) FROM gate_call WHERE dedupe_key = 'report-42'") == 1);
        Future<dev.gate.api.Permit> second = pool.submit(() -> b.callers().acquire(limit, CallClass.BACKFILL,
                Duration.ofSeconds(10), "worker", once));
        dev.gate.api.Permit p1 = first.get(15, TimeUnit.SECONDS);
        dev.gate.api.Permit p2 = second.get(15, TimeUnit.SECONDS);
        assertEquals(p1.callId(), p2.callId());
        assertTrue(!p1.joined() && p2.joined(), "only the first calls the vendor");
        Future<dev.gate.api.Outcome> shared = pool.submit(() -> b.callers().awaitOutcome(p2.callId(), Duration.ofSeconds(10)));
        a.callers().complete(p1.callId(), 204);
        assertEquals(204, shared.get(15, TimeUnit.SECONDS).status(), "the joiner sees the first caller's outcome");
        pool.shutdown();
        assertEquals(1, copies.count("SELECT count(*) FROM gate_send WHERE call_id = ?", p1.callId()));
    }

    /** The one of the ten programs whose call it is (the others joined it). */
    private String submitter(long id) throws Exception {
        for (int i = 0; i < 10; i++) {
            if (a.programs().own("program-" + i, id).isPresent()) {
                return "program-" + i;
            }
        }
        throw new AssertionError("no program owns call " + id);
    }

    private long count(String sql) {
        try {
            return copies.count(sql);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
