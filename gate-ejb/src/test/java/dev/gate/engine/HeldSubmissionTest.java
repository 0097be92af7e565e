package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.CallState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.gate.domain.CallRow;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A program's submission whose answer will be held until its call leaves WAITING (HTTP {@code waitSeconds}) is
 * watched from before its row commits: a grant that comes at once after the commit, before the answer is even
 * prepared, is heard, not missed until the hold's timeout. The answer is read once; a grant made on this instance
 * brings the call with it, as a read would give it, so the answer needs no second read.
 */
class HeldSubmissionTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @Test
    void aGrantRightAfterTheJoinCommitsIsHeardByTheHeldAnswer() throws Exception {
        // the slot loop never runs: only the callers' own statements grant
        Engine gate = copies.start("held", GateCopies.FAST, new StalledLoopScheduler());
        copies.limit("held", 1, Duration.ofMinutes(1));
        copies.sql("UPDATE gate_slot SET next_slot_at = clock_timestamp() + interval '1 hour' WHERE limit_name = 'held'");
        ProgramCalls.Submitted s = gate.programs().submit("web", "held", CallClass.SCHEDULED, CallOptions.NONE, null,
                null, true);
        assertEquals(CallState.WAITING, s.call().state());
        assertTrue(s.watch().isPresent(), "watched from before its row committed");

        // the slot comes due and another program's join grants the head of the line (this call) at once
        copies.sql("UPDATE gate_slot SET next_slot_at = clock_timestamp() - interval '1 second' "
                + "WHERE limit_name = 'held'");
        gate.programs().submit("worker", "held", CallClass.SCHEDULED, CallOptions.NONE, null);
        assertEquals("GRANTED", copies.state(s.call().id()));

        // heard: the held answer goes now, not at its timeout; with the call as a read gives it
        CallRow delivered = s.watch().get().get(5, TimeUnit.SECONDS);
        assertNotNull(delivered, "a grant made here brings the call whole");
        assertEquals(gate.programs().visible("web", s.call().id()).orElseThrow(), delivered);
    }

    @Test
    void eachCallOfARunIsDeliveredAsAReadGivesIt() throws Exception {
        assertDeliveredAsRead("runs", false); // the strict order: several held calls granted by one statement
    }

    @Test
    void aCallGrantedInFairOrderIsDeliveredAsAReadGivesIt() throws Exception {
        assertDeliveredAsRead("fair", true); // fairPrograms: one call per statement, its own grant writer
    }

    /** Four held calls, each with a lease of its own, granted by a join's pass once the slot is due. */
    private void assertDeliveredAsRead(String limit, boolean fairPrograms) throws Exception {
        Engine gate = copies.start(limit, GateCopies.FAST, new StalledLoopScheduler());
        copies.limit(limit, 10, Duration.ofSeconds(1), "burst", 5, "fair_programs", fairPrograms);
        copies.sql("UPDATE gate_slot SET next_slot_at = clock_timestamp() + interval '1 hour' "
                + "WHERE limit_name = '" + limit + "'");
        List<ProgramCalls.Submitted> held = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            held.add(gate.programs().submit("web", limit, CallClass.SCHEDULED,
                    CallOptions.NONE.withLease(Duration.ofSeconds(30 + i)), null, null, true));
        }
        copies.sql("UPDATE gate_slot SET next_slot_at = clock_timestamp() - interval '1 second' "
                + "WHERE limit_name = '" + limit + "'");
        gate.programs().submit("worker", limit, CallClass.SCHEDULED, CallOptions.NONE, null);
        CallRow first = held.get(0).watch().orElseThrow().get(5, TimeUnit.SECONDS);
        assertNotNull(first, "a grant made here brings the call whole");
        assertEquals(gate.programs().visible("web", first.id()).orElseThrow(), first);
        for (ProgramCalls.Submitted s : held) {
            if (s.watch().orElseThrow().isDone()) {
                assertEquals(gate.programs().visible("web", s.call().id()).orElseThrow(), s.watch().get().get());
            }
        }
    }

    @Test
    void aCallThatOthersMayShareIsReadNotDelivered() throws Exception {
        // a dedupe key's call may have joiners, whose count the grant does not read: its watchers read it
        Engine gate = copies.start("shared", GateCopies.FAST, new StalledLoopScheduler());
        copies.limit("shared", 1, Duration.ofMinutes(1));
        copies.sql("UPDATE gate_slot SET next_slot_at = clock_timestamp() + interval '1 hour' "
                + "WHERE limit_name = 'shared'");
        ProgramCalls.Submitted s = gate.programs().submit("web", "shared", CallClass.SCHEDULED, CallOptions.NONE,
                "report-7", null, true);
        gate.programs().submit("worker", "shared", CallClass.SCHEDULED, CallOptions.NONE, "report-7");
        copies.sql("UPDATE gate_slot SET next_slot_at = clock_timestamp() - interval '1 second' "
                + "WHERE limit_name = 'shared'");
        gate.programs().submit("other", "shared", CallClass.SCHEDULED, CallOptions.NONE, null);
        assertEquals("GRANTED", copies.state(s.call().id()));
        assertNull(s.watch().get().get(5, TimeUnit.SECONDS), "read by its watchers: it has a joiner");
        assertEquals(1, gate.programs().visible("web", s.call().id()).orElseThrow().joiners());
    }
}
