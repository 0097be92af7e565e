package dev.gate.engine;

import dev.gate.domain.LimitRemoval;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.InvalidLimitException;
import dev.gate.api.LimitSpec;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An operator's removal of a limit is all or nothing: refused (a call waits, or it is a parent), it changes nothing:
 * the finished calls still answer, the send log still counts, a program's submission key still finds its call.
 * Accepted, it takes every row of the limit with it.
 */
class LimitRemovalTest extends OnOneCopy {

    @Test
    void aRefusedRemovalKeepsTheHistoryTheSendLogAndTheSubmissionKeys() throws Exception {
        String limit = "kept";
        // a burst of two: both go at once, then the window holds the third for a minute
        copies.limit(limit, 2, Duration.ofMinutes(1), "burst", 2);
        copies.slotLongDue(limit);
        // two finished calls (with the program's submission keys) and their sends, then one that waits
        ProgramCalls.Submitted first = gate.programs().submit("worker", limit, CallClass.SCHEDULED,
                CallOptions.NONE, null, "key-1");
        ProgramCalls.Submitted second = gate.programs().submit("worker", limit, CallClass.SCHEDULED,
                CallOptions.NONE, null, "key-2");
        GateCopies.await("both granted", Duration.ofSeconds(5), () -> count(
                "SELECT count(*) FROM gate_call WHERE state = 'GRANTED'") == 2);
        assertTrue(gate.programs().outcome("worker", first.call().id(), 200, null));
        assertTrue(gate.programs().outcome("worker", second.call().id(), 200, null));
        ProgramCalls.Submitted waiting = gate.programs().submit("worker", limit, CallClass.SCHEDULED,
                CallOptions.NONE, null, "key-3");
        assertEquals("WAITING", waiting.call().state().name(), "the window holds the third call");

        LimitRemoval refused = gate.limits().remove(limit, "ops");
        assertFalse(refused.removed());
        assertEquals(1, refused.liveCalls());

        // nothing changed: the history answers, the window still counts both sends, a key still finds its call
        assertEquals(3, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ?", limit));
        assertEquals(2, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit));
        assertTrue(gate.programs().own("worker", first.call().id()).isPresent(), "a finished call still answers");
        ProgramCalls.Submitted again = gate.programs().submit("worker", limit, CallClass.SCHEDULED,
                CallOptions.NONE, null, "key-1");
        assertTrue(again.repeated(), "the submission sent again finds its call");
        assertEquals(first.call().id(), again.call().id());
        assertEquals(3, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ?", limit));
        assertEquals(0, copies.count("SELECT count(*) FROM gate_action WHERE action = 'remove-limit'"));

        // once the line is empty, the removal takes everything
        assertTrue(gate.programs().cancel("worker", waiting.call().id()));
        LimitRemoval removed = gate.limits().remove(limit, "ops");
        assertTrue(removed.removed());
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ?", limit));
        assertEquals(0, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit));
        assertEquals(0, copies.count("SELECT count(*) FROM gate_slot WHERE limit_name = ?", limit));
        assertEquals(1, copies.count("SELECT count(*) FROM gate_action WHERE action = 'remove-limit'"));
    }

    @Test
    void aParentsRefusedRemovalKeepsItsHistory() throws Exception {
        copies.limit("source", 100, Duration.ofSeconds(1));
        gate.limits().put("per-account", LimitSpec.of(10, Duration.ofSeconds(1)).withKeyed(true).withParent("source"));
        gate.callers().complete(gate.callers().acquire("source", CallClass.MANUAL, Duration.ofSeconds(5), "ops-tool",
                CallOptions.NONE).callId(), 200);

        assertThrows(InvalidLimitException.class, () -> gate.limits().remove("source", "ops"));
        assertEquals(1, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = 'source'"));
        assertEquals(1, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = 'source'"));
    }

    @Test
    void aLongHistoryGoesWholeInOneRemoval() throws Exception {
        String limit = "long-history";
        copies.limit(limit, 600, Duration.ofMinutes(1));
        int rows = 30_000; // several batches of each
        copies.sql("""
                INSERT INTO gate_send (limit_name, call_id, sent_at, slot_at, seq)
                SELECT ?, i, now() - interval '1 hour' + i * interval '100 ms', now(), i
                FROM generate_series(1, ?) i""", limit, rows);
        copies.sql("""
                INSERT INTO gate_call (limit_name, call_class, program, owner, state, enqueued_at, lease_ms,
                                       lease_expires_at, granted_at, done_at, outcome_status)
                SELECT ?, 3, 'worker', 'program:worker', 'DONE', t, 30000, t, t, t, 200
                FROM (SELECT now() - interval '1 hour' + i * interval '100 ms' AS t
                      FROM generate_series(1, ?) i) d""", limit, rows);
        assertTrue(gate.limits().remove(limit, "ops").removed());
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call"));
        assertEquals(0, copies.count("SELECT count(*) FROM gate_send"));
        assertEquals(0, copies.count("SELECT count(*) FROM gate_limit"));
    }

    @Test
    void aLimitRemovedAndDeclaredAgainWithinItsWindowCountsTheSendsStillInIt() throws Exception {
        // on the old code a removal forgot the send log: made anew at once, the limit sent a whole window again while
        // the vendor still counted the first
        gate.limits().put("renewed", LimitSpec.of(5, Duration.ofMinutes(1)).withBurst(5));
        gate.limits().put("renewed-keys", LimitSpec.of(3, Duration.ofMinutes(1)).withBurst(3).withKeyed(true));
        CallOptions user = CallOptions.NONE.withLimitKey("user-1");
        for (int i = 0; i < 5; i++) {
            assertTrue(gate.callers().tryConsume("renewed", CallClass.INTERACTIVE, "api", CallOptions.NONE)
                    .isGranted());
            if (i < 3) {
                assertTrue(gate.callers().tryConsume("renewed-keys", CallClass.INTERACTIVE, "api", user).isGranted());
            }
        }
        for (String limit : new String[] {"renewed", "renewed-keys"}) {
            assertTrue(gate.limits().remove(limit, "ops").removed());
        }
        assertEquals(0, copies.count("SELECT count(*) FROM gate_send"), "the send log goes with the limit");
        gate.limits().put("renewed", LimitSpec.of(5, Duration.ofMinutes(1)).withBurst(5));
        gate.limits().put("renewed-keys", LimitSpec.of(3, Duration.ofMinutes(1)).withBurst(3).withKeyed(true));

        dev.gate.api.Attempt again = gate.callers().tryConsume("renewed", CallClass.INTERACTIVE, "api",
                CallOptions.NONE);
        assertTrue(!again.isGranted() && again.retryAfter().compareTo(Duration.ofSeconds(50)) > 0,
                "the minute still holds the five sends: " + (again.isGranted() ? "granted" : again.retryAfter()));
        dev.gate.api.Attempt key = gate.callers().tryConsume("renewed-keys", CallClass.INTERACTIVE, "api", user);
        assertTrue(!key.isGranted(), "the key made anew counts its three sends too");
        assertEquals(0, copies.count("SELECT count(*) FROM gate_removed_send WHERE limit_name LIKE 'renewed%'"),
                "taken back, not kept twice");
        // once a kept send leaves the longest window it is pruned (nothing made anew takes it back)
        copies.sql("INSERT INTO gate_removed_send VALUES ('gone-limit', now() - interval '2 h', now() - interval '1 h')");
        copies.start("keeper", GateCopies.FAST.withRetention(Duration.ofHours(1), Duration.ofMillis(100)),
                new java.util.concurrent.ScheduledThreadPoolExecutor(2));
        GateCopies.await("the housekeeping prunes a kept send past its window", Duration.ofSeconds(10),
                () -> count("SELECT count(*) FROM gate_removed_send") == 0);
    }

    private long count(String sql) {
        try {
            return copies.count(sql);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
