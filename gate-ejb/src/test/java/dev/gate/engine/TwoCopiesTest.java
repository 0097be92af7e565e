package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.Permit;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two copies of the gate, each with its own pool and loop, on one database: one line. */
class TwoCopiesTest extends OnTwoCopies {

    @Test
    void anInteractiveCallOfCopyBIsGrantedAtTheNextSlotAheadOfCopyAsBackfill() throws Exception {
        String limit = "shared";
        copies.limit(limit, 10, Duration.ofSeconds(1));
        List<Ticket> backfill = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            backfill.add(a.callers().join(limit, CallClass.BACKFILL, "worker", CallOptions.NONE));
        }
        GateCopies.await("a few BACKFILL sends", Duration.ofSeconds(10), () -> sendsOf(limit) >= 3);

        Ticket interactive = b.callers().join(limit, CallClass.INTERACTIVE, "web", CallOptions.NONE);
        Permit permit = b.callers().await(interactive, Duration.ofSeconds(10));

        long backfillInBetween = copies.count("""
                SELECT count(*) FROM gate_send s JOIN gate_call c ON c.id = s.call_id
                WHERE s.limit_name = ? AND c.call_class = 4 AND s.sent_at >= ? AND s.sent_at < ?""",
                limit, permit.enqueuedAt().atOffset(java.time.ZoneOffset.UTC),
                permit.grantedAt().atOffset(java.time.ZoneOffset.UTC));
        assertTrue(backfillInBetween <= 1, "at most the slot already being granted when it joined may go first, but "
                + backfillInBetween + " BACKFILL calls did");
        long grantedLater = copies.count("""
                SELECT count(*) FROM gate_call WHERE limit_name = ? AND call_class = 4
                AND (granted_at IS NULL OR granted_at > ?)""", limit, permit.grantedAt().atOffset(java.time.ZoneOffset.UTC));
        assertTrue(grantedLater >= 20, "the BACKFILL calls still waiting were all passed: " + grantedLater);
        assertEquals(backfill.size() + 1, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ?", limit));
    }

    @Test
    void insideOneClassTheFirstToArriveGoesFirstWhicheverCopyTookIt() throws Exception {
        String limit = "fifo";
        copies.limit(limit, 20, Duration.ofSeconds(1));
        // joined one after the other, alternating between the copies
        List<Ticket> tickets = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            Engine copy = i % 2 == 0 ? a : b;
            tickets.add(copy.callers().join(limit, CallClass.SCHEDULED, "timer-" + (i % 2), CallOptions.NONE));
        }
        for (int i = 0; i < tickets.size(); i++) {
            (i % 2 == 0 ? a : b).callers().await(tickets.get(i), Duration.ofSeconds(20));
        }
        List<Long> arrival = copies.ids(
                "SELECT id FROM gate_call WHERE limit_name = ? ORDER BY enqueued_at, id", limit);
        List<Long> granted = copies.ids(
                "SELECT call_id FROM gate_send WHERE limit_name = ? ORDER BY sent_at, id", limit);
        assertEquals(arrival, granted, "grant order across both copies is arrival order");
        assertEquals(tickets.stream().map(Ticket::callId).toList(), arrival);
    }

    @Test
    void aWaiterLearnsPromptlyOfAGrantMadeByTheOtherCopysLoop() throws Exception {
        String limit = "told";
        copies.limit(limit, 1, Duration.ofSeconds(2));
        // copy C's own loop never runs and it polls its waiters only every 30 s: only a notification can tell it
        EngineSettings deaf = new EngineSettings(Duration.ofSeconds(30), Duration.ofSeconds(1),
                Duration.ofSeconds(300), Duration.ofMillis(300), Duration.ofSeconds(30), Duration.ofSeconds(30),
                Duration.ofMillis(100), 3, Duration.ofMillis(900));
        Engine c = copies.start("copy-c", deaf, new StalledLoopScheduler());
        a.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE);
        Ticket waiting = c.callers().join(limit, CallClass.SCHEDULED, "timer", CallOptions.NONE); // the window is full for 2 s

        Permit permit = c.callers().await(waiting, Duration.ofSeconds(10));
        Instant told = Instant.now();
        Duration lag = Duration.between(permit.grantedAt(), told);
        assertTrue(lag.compareTo(Duration.ofSeconds(2)) < 0, "copy C heard of its grant " + lag + " after another"
                + " copy's loop made it; its own poll would take 30 s");
    }

    @Test
    void aFullLineForOneLimitNeverDelaysAnother() throws Exception {
        copies.limit("busy", 1, Duration.ofMinutes(1));
        copies.limit("quiet", 10, Duration.ofSeconds(1));
        List<Ticket> flood = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            flood.add(a.callers().join("busy", CallClass.INTERACTIVE, "web", CallOptions.NONE));
        }
        for (int i = 0; i < 3; i++) {
            Permit p = b.callers().acquire("quiet", CallClass.BACKFILL, Duration.ofSeconds(5), "worker", CallOptions.NONE);
            Duration waited = Duration.between(p.enqueuedAt(), p.grantedAt());
            // behind the busy limit it would wait for a slot a minute away
            assertTrue(waited.compareTo(Duration.ofSeconds(5)) < 0, "a quiet limit's call waited " + waited);
        }
        assertEquals(49, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = 'busy' AND state = 'WAITING'"));
    }

    private long sendsOf(String limit) {
        try {
            return copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
