package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallEndedException;
import dev.gate.api.CallOptions;
import dev.gate.api.GateFailedException;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a caller hears for input the line cannot take, and what stays behind: nothing. A program name too long for
 * the line is refused before the database; a join the database refuses is the gate's fault, told without the
 * database's text; a wait on a call that does not exist leaves no watch behind.
 */
class BadInputTest extends OnOneCopy {

    @Test
    void aProgramNameTooLongIsRefusedBeforeTheDatabase() throws Exception {
        copies.limit("open", 100, Duration.ofSeconds(1));
        String longName = "p".repeat(65);
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> gate.callers()
                .acquire("open", CallClass.SCHEDULED, Duration.ofSeconds(1), longName, CallOptions.NONE));
        assertTrue(refused.getMessage().startsWith("program: must be 1-64 characters"), refused.getMessage());
        assertThrows(IllegalArgumentException.class, () -> gate.callers().tryNow("open", CallClass.SCHEDULED,
                longName, CallOptions.NONE));
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call"));
        assertTrue(gate.callers().acquire("open", CallClass.SCHEDULED, Duration.ofSeconds(5), "p".repeat(64),
                CallOptions.NONE).callId() > 0, "64 characters are a program's name");
    }

    @Test
    void aJoinTheDatabaseRefusesIsTheGatesFaultToldWithoutItsText() throws Exception {
        copies.limit("open", 100, Duration.ofSeconds(1));
        // a fault the gate does not expect: the table refuses this program's rows
        copies.sql("ALTER TABLE gate_call ADD CONSTRAINT no_breaker CHECK (program <> 'breaker')");
        GateFailedException failed = assertThrows(GateFailedException.class, () -> gate.callers()
                .acquire("open", CallClass.SCHEDULED, Duration.ofSeconds(1), "breaker", CallOptions.NONE));
        assertTrue(failed.getMessage().contains("failed to take a call on limit open"), failed.getMessage());
        assertFalse(failed.getMessage().contains("no_breaker") || failed.getMessage().contains("ERROR"),
                "no database text: " + failed.getMessage());
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call"), "nothing joined");
    }

    @Test
    void aWaitOnACallThatDoesNotExistLeavesNoWatch() throws Exception {
        assertThrows(CallEndedException.class, () -> gate.callers().awaitOutcome(987_654_321L,
                Duration.ofSeconds(1)));
        assertFalse(gate.watchedCalls().contains(987_654_321L), "no watch left for a call that is not there");
    }
}
