package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.LimitSpec;
import dev.gate.api.LineFullException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A line has a size: a flood of joins fills it to its cap and the rest are refused at once (nothing waits for them),
 * each told when a place may free; one program fills at most its share; a keyed limit opens at most its keys. Each
 * refusal is counted for the operators.
 */
class FullLineTest extends OnOneCopy {

    @Test
    void aFloodFillsTheLineToItsCapAndTheRestAreRefusedAtOnce() throws Exception {
        gate.limits().put("capped", LimitSpec.of(1, Duration.ofMinutes(1)).withMaxWaiting(3, null));
        gate.programs().submit("timer", "capped", CallClass.SCHEDULED, CallOptions.NONE, null); // takes the slot
        ProgramCalls.Submitted report = gate.programs().submit("reporter", "capped", CallClass.SCHEDULED,
                CallOptions.NONE, "report-12");
        List<LineFullException> refused = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            try {
                gate.programs().submit("flood", "capped", CallClass.BACKFILL, CallOptions.NONE, null);
            } catch (LineFullException e) {
                refused.add(e);
            }
        }
        assertEquals(8, refused.size(), "three wait (the report and two of the flood), eight are refused");
        assertEquals(3, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = 'capped' "
                + "AND state = 'WAITING'"));
        Duration retry = refused.get(0).retryAfter();
        assertTrue(retry.compareTo(Duration.ofSeconds(50)) > 0 && retry.compareTo(Duration.ofSeconds(61)) <= 0,
                "a place may free at the next slot, a minute after the first call: " + retry);
        String message = refused.get(0).getMessage();
        assertTrue(message.contains("its line holds maxWaiting calls"), message);
        // a higher class is refused too: the cap is the line's, not a class's
        assertThrows(LineFullException.class, () -> gate.programs().submit("web", "capped", CallClass.INTERACTIVE,
                CallOptions.NONE, null));
        var line = gate.limits().status("capped").orElseThrow().getLine();
        assertEquals(9, line.getRefused(), "each refusal counted");
        assertTrue(line.getLastRefusedAt() != null);
        // a dedupe joiner adds nothing to the line: it still joins its live call
        ProgramCalls.Submitted again = gate.programs().submit("web", "capped", CallClass.MANUAL, CallOptions.NONE,
                "report-12");
        assertTrue(again.joined());
        assertEquals(report.call().id(), again.call().id());
    }

    @Test
    void aSubmissionSentAgainOnAFullLineFindsItsCallNotLineFull() throws Exception {
        gate.limits().put("full", LimitSpec.of(1, Duration.ofMinutes(1)).withMaxWaiting(1, null));
        gate.programs().submit("timer", "full", CallClass.SCHEDULED, CallOptions.NONE, null); // takes the slot
        ProgramCalls.Submitted last = gate.programs().submit("worker", "full", CallClass.BACKFILL, CallOptions.NONE,
                null, "worker-7"); // the line's one place
        assertThrows(LineFullException.class, () -> gate.programs().submit("worker", "full", CallClass.BACKFILL,
                CallOptions.NONE, null, "worker-8"));
        // the program lost the answer to its submission and sends it again: its call, not "line full"
        ProgramCalls.Submitted again = gate.programs().submit("worker", "full", CallClass.BACKFILL, CallOptions.NONE,
                null, "worker-7");
        assertTrue(again.repeated());
        assertEquals(last.call().id(), again.call().id());
    }

    @Test
    void oneProgramFillsAtMostItsShare() throws Exception {
        gate.limits().put("shared", LimitSpec.of(1, Duration.ofMinutes(1)).withMaxWaiting(10, 2));
        gate.programs().submit("timer", "shared", CallClass.SCHEDULED, CallOptions.NONE, null);
        int refused = 0;
        for (int i = 0; i < 5; i++) {
            try {
                gate.programs().submit("flood", "shared", CallClass.BACKFILL, CallOptions.NONE, null);
            } catch (LineFullException e) {
                assertTrue(e.getMessage().contains("maxWaitingPerProgram"), e.getMessage());
                refused++;
            }
        }
        assertEquals(3, refused);
        // another program still gets in, at once
        assertEquals("WAITING", gate.programs().submit("web", "shared", CallClass.INTERACTIVE, CallOptions.NONE, null)
                .call().state().name());
        assertEquals(3, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = 'shared' "
                + "AND state = 'WAITING'"));
    }

    @Test
    void aKeyedLimitOpensAtMostItsKeysAndItsOpenKeysStillServe() throws Exception {
        gate.limits().put("per-user", LimitSpec.of(10, Duration.ofSeconds(1)).withKeyed(true).withMaxKeys(3));
        for (String user : List.of("a", "b", "c")) {
            gate.callers().complete(gate.callers().acquire("per-user", CallClass.INTERACTIVE, Duration.ofSeconds(5),
                    "web", CallOptions.NONE.withLimitKey(user)).callId(), 200);
        }
        LineFullException full = assertThrows(LineFullException.class, () -> gate.callers().acquire("per-user",
                CallClass.INTERACTIVE, Duration.ofSeconds(5), "web", CallOptions.NONE.withLimitKey("d")));
        assertTrue(full.getMessage().contains("maxKeys"), full.getMessage());
        assertEquals(3, copies.count("SELECT count(*) FROM gate_limit WHERE template_name = 'per-user'"));
        // an open key is served as before
        gate.callers().complete(gate.callers().acquire("per-user", CallClass.INTERACTIVE, Duration.ofSeconds(5),
                "web", CallOptions.NONE.withLimitKey("a")).callId(), 200);
        assertEquals(1, gate.limits().status("per-user").orElseThrow().getLine().getRefused());
        assertEquals(3, gate.limits().status("per-user").orElseThrow().getOpenKeys());
        // a key that goes makes room (its count follows every removal, here by hand as the idle sweep would)
        copies.sql("DELETE FROM gate_call WHERE limit_name = 'per-user~c'");
        copies.sql("DELETE FROM gate_limit WHERE name = 'per-user~c'");
        gate.callers().complete(gate.callers().acquire("per-user", CallClass.INTERACTIVE, Duration.ofSeconds(5),
                "web", CallOptions.NONE.withLimitKey("d")).callId(), 200);
    }

    @Test
    void callsWhoseLeaseRanOutDoNotFillTheLine() throws Exception {
        // the only copy: one whose lease sweep does not come round during the test (it runs every waiterPoll)
        gate.halt();
        EngineSettings f = GateCopies.FAST;
        Engine slow = copies.start("no-sweep", new EngineSettings(f.defaultLease(), f.minLease(), f.maxLease(),
                f.heartbeat(), Duration.ofHours(1), f.idlePoll(), f.retry(), f.callerConcurrency(), f.callerWait()),
                new java.util.concurrent.ScheduledThreadPoolExecutor(2));
        slow.limits().put("after-outage", LimitSpec.of(1, Duration.ofMinutes(1)).withMaxWaiting(3, null));
        slow.programs().submit("timer", "after-outage", CallClass.SCHEDULED, CallOptions.NONE, null);
        // a dead program's calls, lapsed and not swept yet
        copies.sql("""
                INSERT INTO gate_call (limit_name, call_class, program, owner, state, lease_ms, lease_expires_at)
                SELECT 'after-outage', 4, 'dead', 'program:dead', 'WAITING', 30000, now() - interval '1 second'
                FROM generate_series(1, 5)""");
        assertEquals("WAITING", slow.programs().submit("live", "after-outage", CallClass.BACKFILL, CallOptions.NONE,
                null).call().state().name(), "the living are not locked out by the dead");
        assertEquals(5, copies.count("SELECT count(*) FROM gate_call WHERE program = 'dead' AND state = 'WAITING'"),
                "not swept: they only did not count");
    }
}
