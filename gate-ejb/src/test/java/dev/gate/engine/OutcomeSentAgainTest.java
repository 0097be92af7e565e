package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.GateException;
import dev.gate.api.Permit;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An outcome whose answer was lost is sent again (a batch step waiting out an outage, gate-client's resend): the same
 * outcome is accepted and changes nothing, so the sender goes on; another outcome for a DONE call is refused.
 */
class OutcomeSentAgainTest extends OnOneCopy {

    @Test
    void theSameOutcomeSentAgainIsAcceptedAndRecordedOnce() throws Exception {
        copies.limit("reported", 100, Duration.ofSeconds(1));
        Permit p = gate.callers().acquire("reported", CallClass.BACKFILL, Duration.ofSeconds(5), "batch:job",
                CallOptions.NONE);
        gate.callers().complete(p.callId(), 200);
        gate.callers().complete(p.callId(), 200); // its first answer was lost: the sender cannot know it went through
        assertThrows(GateException.class, () -> gate.callers().complete(p.callId(), 500),
                "a different outcome for a call already done");

        // a vendor's slow-down sent again pauses the limit once: the ladder does not climb twice
        Permit q = gate.callers().acquire("reported", CallClass.BACKFILL, Duration.ofSeconds(5), "batch:job",
                CallOptions.NONE);
        gate.callers().complete(q.callId(), 429, 5);
        gate.callers().complete(q.callId(), 429, 5);
        assertEquals(1, copies.count("SELECT cooldown_step FROM gate_slot WHERE limit_name = 'reported'"));

        // a program over HTTP: its resend is answered as recorded, another program's report is not its to make
        ProgramCalls.Submitted s = gate.programs().submit("worker", "reported", CallClass.MANUAL, CallOptions.NONE,
                null);
        gate.operators().resume("reported", "ops");
        GateCopies.await("the worker's call granted", Duration.ofSeconds(5),
                () -> count("SELECT count(*) FROM gate_call WHERE id = " + s.call().id() + " AND state = 'GRANTED'")
                        == 1);
        assertTrue(gate.programs().outcome("worker", s.call().id(), 200, null));
        assertTrue(gate.programs().outcome("worker", s.call().id(), 200, null), "sent again: recorded");
        assertFalse(gate.programs().outcome("web", s.call().id(), 200, null), "not web's call");
    }

    private long count(String sql) {
        try {
            return copies.count(sql);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
