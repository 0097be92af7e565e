package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.GateTimeoutException;
import dev.gate.api.LimitSpec;
import dev.gate.api.Permit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A call on a free line is granted by one statement: it never waits in the line (its row is written GRANTED, the
 * moment it arrived). It never jumps a call of its class or a higher one that waits; a slot lock that stays held
 * sends it into the line as any call.
 */
class FreeLineTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @Test
    void aCallOnAFreeLineIsGrantedWithoutWaitingInIt() throws Exception {
        Engine gate = copies.start("free");
        // a burst of 2: both calls are due however close together they come (with none, the second one within the
        // beat's 10 ms waited: a flake on a fast database)
        gate.limits().put("open", LimitSpec.of(100, Duration.ofSeconds(1)).withBurst(2));
        Permit p = gate.callers().acquire("open", CallClass.SCHEDULED, Duration.ofSeconds(5), "worker",
                CallOptions.NONE);
        assertEquals(1, copies.count("SELECT count(*) FROM gate_call WHERE id = ? AND state = 'GRANTED' "
                + "AND enqueued_at = granted_at", p.callId()), "written granted, never waiting");
        ProgramCalls.Submitted s = gate.programs().submit("web", "open", CallClass.INTERACTIVE, CallOptions.NONE,
                null, "web-1");
        assertEquals("GRANTED", s.call().state().name(), "a program's submission too, in its answer");
        ProgramCalls.Submitted again = gate.programs().submit("web", "open", CallClass.INTERACTIVE, CallOptions.NONE,
                null, "web-1");
        assertTrue(again.repeated(), "sent again with its key: the same call, not a second grant");
        assertEquals(s.call().id(), again.call().id());
        assertEquals(2, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = 'open'"));
    }

    @Test
    void callsThatMeetOnAFreeLineAreGrantedTogetherInClassOrderInOneCommit() throws Exception {
        Engine gate = copies.start("free-group");
        gate.limits().put("roomy", LimitSpec.of(1000, Duration.ofSeconds(1)).withBurst(50));
        gate.limits().put("elsewhere", LimitSpec.of(10, Duration.ofSeconds(1)));
        gate.programs().submit("web", "elsewhere", CallClass.MANUAL, CallOptions.NONE, null, "theirs");
        JoinGroups<?, ?> groups = gate.joining().freeLine().groups();
        java.util.List<CallClass> arriving = java.util.List.of(CallClass.BACKFILL, CallClass.SCHEDULED,
                CallClass.INTERACTIVE, CallClass.MANUAL, CallClass.INTERACTIVE);
        java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
        groups.holdLeaders(hold);
        java.util.concurrent.ExecutorService callers = java.util.concurrent.Executors.newFixedThreadPool(6);
        try {
            java.util.List<java.util.concurrent.Future<Long>> granted = new java.util.ArrayList<>();
            for (CallClass c : arriving) {
                granted.add(callers.submit(() -> gate.callers().acquire("roomy", c, Duration.ofSeconds(5), "worker",
                        CallOptions.NONE).callId()));
                int n = granted.size();
                GateCopies.await(n + " gathered", Duration.ofSeconds(10), () -> groups.waiting("roomy") == n);
            }
            // a key this program used for another limit's call: its own error (from the join), the others granted
            java.util.concurrent.Future<?> misused = callers.submit(() -> gate.programs().submit("web", "roomy",
                    CallClass.INTERACTIVE, CallOptions.NONE, null, "theirs"));
            GateCopies.await("6 gathered", Duration.ofSeconds(10), () -> groups.waiting("roomy") == 6);
            hold.countDown();
            groups.holdLeaders(null);
            java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> misused.get(30, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof dev.gate.api.SubmissionKeyReusedException, String.valueOf(e.getCause()));
            for (java.util.concurrent.Future<Long> f : granted) {
                long id = f.get(30, java.util.concurrent.TimeUnit.SECONDS);
                assertEquals(1, copies.count("SELECT count(*) FROM gate_call WHERE id = ? AND enqueued_at = granted_at",
                        id), "granted on the free line, never waiting");
            }
        } finally {
            callers.shutdownNow();
        }
        assertEquals(1, copies.count("SELECT count(DISTINCT xmin::text) FROM gate_send WHERE limit_name = 'roomy'"),
                "one commit for the group");
        assertEquals(java.util.List.of(0L, 0L, 1L, 2L, 4L), copies.ids("SELECT c.call_class FROM gate_send s "
                + "JOIN gate_call c ON c.id = s.call_id WHERE s.limit_name = 'roomy' ORDER BY s.seq"), "class order");
    }

    @Test
    void aGroupOnALineWhereACallWaitsGrantsOnlyWhatGoesAheadOfIt() throws Exception {
        // the slot loop never runs here: only the callers' own statements grant
        Engine gate = copies.start("no-loop-group", GateCopies.FAST, new StalledLoopScheduler());
        copies.limit("ranked", 1, Duration.ofMinutes(1));
        copies.slotLongDue("ranked");
        waiting("ranked", CallClass.SCHEDULED, "timer");
        JoinGroups<?, ?> groups = gate.joining().freeLine().groups();
        java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
        groups.holdLeaders(hold);
        java.util.concurrent.ExecutorService callers = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            java.util.concurrent.Future<Permit> backfill = callers.submit(() -> gate.callers().acquire("ranked",
                    CallClass.BACKFILL, Duration.ofMillis(500), "backfill", CallOptions.NONE));
            GateCopies.await("1 gathered", Duration.ofSeconds(10), () -> groups.waiting("ranked") == 1);
            java.util.concurrent.Future<Permit> person = callers.submit(() -> gate.callers().acquire("ranked",
                    CallClass.INTERACTIVE, Duration.ofSeconds(1), "web", CallOptions.NONE));
            GateCopies.await("2 gathered", Duration.ofSeconds(10), () -> groups.waiting("ranked") == 2);
            hold.countDown();
            groups.holdLeaders(null);
            long id = person.get(30, java.util.concurrent.TimeUnit.SECONDS).callId();
            assertEquals(1, copies.count("SELECT count(*) FROM gate_call WHERE id = ? AND enqueued_at = granted_at",
                    id), "the person's call goes ahead of the waiting SCHEDULED one, from the group, at once");
            java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> backfill.get(30, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof GateTimeoutException, "the backfill call joined behind it: "
                    + e.getCause());
        } finally {
            callers.shutdownNow();
        }
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE program = 'timer' AND state = 'GRANTED'"));
    }

    @Test
    void aCallNeverJumpsAWaitingCallOfItsClassOrHigherButGoesAheadOfLowerOnes() throws Exception {
        // the slot loop never runs here: only the callers' own statements grant
        Engine gate = copies.start("no-loop", GateCopies.FAST, new StalledLoopScheduler());
        copies.limit("one-a-minute", 1, Duration.ofMinutes(1));
        copies.slotLongDue("one-a-minute");
        // a program's SCHEDULED call waits though the slot is due (its loop pass has not come yet)
        waiting("one-a-minute", CallClass.SCHEDULED, "timer");
        // same class: behind it, never past it (its own join grants the head of the line: the waiting call)
        assertThrows(GateTimeoutException.class, () -> gate.callers().acquire("one-a-minute", CallClass.SCHEDULED,
                Duration.ofMillis(500), "worker", CallOptions.NONE));
        assertEquals(1, copies.count("SELECT count(*) FROM gate_call WHERE program = 'timer' AND state = 'GRANTED'"),
                "the waiting call had the slot");
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE program = 'worker' AND state = 'GRANTED'"));

        // a higher class goes ahead of a lower one that waits
        copies.limit("ranked", 1, Duration.ofMinutes(1));
        copies.slotLongDue("ranked");
        waiting("ranked", CallClass.BACKFILL, "backfill");
        Permit person = gate.callers().acquire("ranked", CallClass.INTERACTIVE, Duration.ofSeconds(1), "web",
                CallOptions.NONE);
        assertEquals(1, copies.count("SELECT count(*) FROM gate_call WHERE id = ? AND enqueued_at = granted_at",
                person.callId()), "a person's call on a line of backfill goes at once");
    }

    @Test
    void aCallWhoseSlotLockStaysHeldJoinsTheLineAndIsGrantedOnceItIsFree() throws Exception {
        Engine gate = copies.start("locked");
        gate.limits().put("busy", LimitSpec.of(100, Duration.ofSeconds(1)));
        try (Connection pass = copies.connect()) {
            pass.setAutoCommit(false);
            try (PreparedStatement ps = pass.prepareStatement(
                    "SELECT 1 FROM gate_slot WHERE limit_name = 'busy' FOR UPDATE")) {
                ps.executeQuery().close(); // as a stalled holder would (a grant pass holds it for milliseconds)
            }
            // the free line waits for the lock at most the lock timeout (200 ms), then the call joins the line
            Ticket t = gate.callers().join("busy", CallClass.SCHEDULED, "worker", CallOptions.NONE);
            assertEquals(1, copies.count("SELECT count(*) FROM gate_call WHERE id = ? AND state = 'WAITING'",
                    t.callId()), "joined the line");
            pass.rollback();
            Permit p = gate.callers().await(t, Duration.ofSeconds(5));
            assertEquals(t.callId(), p.callId(), "granted by the loop once the lock is free");
        }
    }

    @Test
    void onALimitWithABurstAllowanceAHeldLockIsNeverQueuedOnTheCallJoinsAndIsGrantedInTheNextRun() throws Exception {
        Engine gate = copies.start("runs");
        gate.limits().put("one-at-a-time", LimitSpec.of(100, Duration.ofSeconds(1)));
        gate.limits().put("in-runs", LimitSpec.of(100, Duration.ofSeconds(1)).withBurst(10));
        assertTrue(queuesOnAHeldLock(gate, "one-at-a-time"), "without a burst: the free line waits for the lock");
        assertFalse(queuesOnAHeldLock(gate, "in-runs"), "with one: the call joins at once");
    }

    /**
     * Whether a call on {@code limit}, its slot's lock held elsewhere with nothing waiting, waits for the lock before
     * it joins the line (watched every 5 ms: a wait lasts the 200 ms lock timeout); then granted once it is free.
     */
    private boolean queuesOnAHeldLock(Engine gate, String limit) throws Exception {
        try (Connection pass = copies.connect()) {
            pass.setAutoCommit(false);
            try (PreparedStatement ps = pass.prepareStatement(
                    "SELECT 1 FROM gate_slot WHERE limit_name = ? FOR UPDATE")) {
                ps.setString(1, limit);
                ps.executeQuery().close();
            }
            java.util.concurrent.CompletableFuture<Ticket> joined = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return gate.callers().join(limit, CallClass.SCHEDULED, "worker", CallOptions.NONE);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    });
            boolean queued = false;
            while (!joined.isDone()) {
                queued |= copies.count("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                        + "AND wait_event_type = 'Lock'") > 0;
                Thread.sleep(5);
            }
            Ticket t = joined.get();
            assertEquals(1, copies.count("SELECT count(*) FROM gate_call WHERE id = ? AND state = 'WAITING'",
                    t.callId()), "joined the line");
            pass.rollback();
            assertEquals(t.callId(), gate.callers().await(t, Duration.ofSeconds(5)).callId());
            return queued;
        }
    }

    /** A program's call waiting in the line, its lease good for minutes, written as a join writes it. */
    private void waiting(String limit, CallClass callClass, String program) throws java.sql.SQLException {
        copies.sql("""
                INSERT INTO gate_call (limit_name, call_class, program, owner, state, lease_ms, lease_expires_at)
                VALUES (?, ?, ?, ?, 'WAITING', 300000, clock_timestamp() + interval '5 minutes')""",
                limit, callClass.rank(), program, "program:" + program);
    }
}
