package dev.gate.engine;

import dev.gate.client.CallClass;
import dev.gate.client.CallOptions;
import dev.gate.line.CallState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A program's submission whose answer will be held until its call leaves WAITING (HTTP {@code waitSeconds}) is
 * watched from before its row commits: a grant that comes at once after the commit, before the answer is even
 * prepared, is heard, not missed until the hold's timeout. The answer is read once.
 */
class HeldSubmissionTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @Test
    void aGrantRightAfterTheJoinCommitsIsHeardByTheHeldAnswer() throws Exception {
        // the slot loop never runs: only the callers' own statements grant
        Engine gate = copies.start("held", GateCopies.FAST, new StalledLoopScheduler());
        copies.sql("INSERT INTO gate_limit (name, calls, window_ms) VALUES ('held', 1, 60000)");
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

        s.watch().get().get(5, TimeUnit.SECONDS); // heard: the held answer goes now, not at its timeout
    }
}
