package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.GateException;
import dev.gate.api.LimitSpec;
import dev.gate.api.Permit;
import org.junit.jupiter.api.Test;

import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Who may pause the shared line: a program's Retry-After is taken up to the limit's maxCoolDown, each cool-down is on
 * record with the program and call that started it, and a program reports outcomes only for its own calls.
 */
class WhoPausedTest extends OnTwoCopies {

    @Test
    void aDayAskedIsTheLimitsMaxCoolDownTakenAndTheProgramAndCallAreOnRecord() throws Exception {
        String limit = "asked-a-day";
        a.limits().put(limit, LimitSpec.of(10, Duration.ofSeconds(1)).withMaxCoolDown(Duration.ofMinutes(20)));
        Permit p = a.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE);
        a.callers().complete(p.callId(), "timer", 429, 86_400);

        try (var c = copies.connect(); var s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT s.paused_until, c.done_at, s.slowed_program, s.slowed_call, s.slowed_by FROM gate_slot s, gate_call c"
                        + " WHERE s.limit_name = '" + limit + "' AND c.id = " + p.callId())) {
            assertTrue(rs.next());
            Instant until = rs.getTimestamp(1).toInstant();
            Instant done = rs.getTimestamp(2).toInstant();
            Duration paused = Duration.between(done, until);
            assertTrue(paused.compareTo(Duration.ofMinutes(20)) >= 0 && paused.compareTo(Duration.ofSeconds(1201)) < 0,
                    "a day asked, the limit's 20 minutes taken: " + paused);
            assertEquals("timer", rs.getString(3));
            assertEquals(p.callId(), rs.getLong(4));
            assertEquals(429, rs.getInt(5));
        }
        try (var c = copies.connect(); var s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT actor, detail FROM gate_action WHERE action = 'cool-down' AND target = 'limit " + limit + "'")) {
            assertTrue(rs.next(), "the cool-down is on record beside the operators' actions");
            assertEquals("timer", rs.getString(1));
            assertTrue(rs.getString(2).contains("call " + p.callId()) && rs.getString(2).contains("taken as 1200 s"),
                    rs.getString(2));
        }
    }

    @Test
    void aProgramCompletesOnlyItsOwnCallsOnAnyServer() throws Exception {
        String limit = "own-calls";
        a.limits().put(limit, LimitSpec.of(50, Duration.ofSeconds(1)));
        Permit web = a.callers().acquire(limit, CallClass.INTERACTIVE, Duration.ofSeconds(5), "web", CallOptions.NONE);
        Permit onB = b.callers().acquire(limit, CallClass.INTERACTIVE, Duration.ofSeconds(5), "web", CallOptions.NONE);

        assertThrows(GateException.class, () -> a.callers().complete(web.callId(), "worker", 429, 3600),
                "another program's permit");
        assertThrows(GateException.class, () -> b.callers().complete(onB.callId(), "worker", 429, 3600),
                "another program's permit, on its own server too");
        assertEquals(0, copies.count("SELECT count(*) FROM gate_slot WHERE limit_name = ? AND paused_until IS NOT NULL",
                limit), "nothing paused the line");
        assertEquals(2, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND state = 'GRANTED'",
                limit), "both calls are still their own programs' to report");

        a.callers().complete(web.callId(), "web", 200, null);
        a.callers().complete(onB.callId(), "web", 200, null); // a remote client may reach another server
        assertEquals(2, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND state = 'DONE'", limit));
    }
}
