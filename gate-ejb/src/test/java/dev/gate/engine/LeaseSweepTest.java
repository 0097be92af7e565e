package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.Permit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * After an outage longer than a lease, or a program that died with many calls, the lease sweeps clear every lapsed
 * call a batch at a time (each statement well inside the statement timeout, passing rows locked elsewhere), while the
 * line's live calls are granted as usual, and the rest of the housekeeping (delivery, retention) goes on at each tick.
 */
class LeaseSweepTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @Test
    void fiftyThousandLapsedCallsAreSweptWhileGrantsGoOnAndARowLockedElsewhereHoldsUpNothingElse() throws Exception {
        String limit = "after-outage";
        copies.limit(limit, 100, Duration.ofSeconds(1));
        // a dead program's 50,000 waiting calls ahead in the line, and 5,000 grants it never reported, all lapsed
        copies.sql("""
                INSERT INTO gate_call (limit_name, call_class, program, owner, state, enqueued_at, lease_ms,
                                       lease_expires_at)
                SELECT ?, 2, 'dead', 'program:dead', 'WAITING', now() - interval '10 minutes' + i * interval '1 ms',
                       30000, now() - interval '1 second'
                FROM generate_series(1, 50000) i""", limit);
        copies.sql("""
                INSERT INTO gate_call (limit_name, call_class, program, owner, state, enqueued_at, granted_at,
                                       lease_ms, lease_expires_at)
                SELECT ?, 2, 'dead', 'program:dead', 'GRANTED', now() - interval '10 minutes',
                       now() - interval '10 minutes', 30000, now() - interval '1 second'
                FROM generate_series(1, 5000) i""", limit);
        // and a day-old history that retention (1 h here) takes
        copies.sql("""
                INSERT INTO gate_call (limit_name, call_class, program, owner, state, enqueued_at, granted_at,
                                       done_at, lease_ms, lease_expires_at, outcome_status)
                SELECT ?, 2, 'old', 'program:old', 'DONE', now() - interval '1 day', now() - interval '1 day',
                       now() - interval '1 day', 30000, now() - interval '1 day', 200
                FROM generate_series(1, 10000) i""", limit);
        copies.sql("ANALYZE gate_call");
        Engine gate = copies.start("sweeper", GateCopies.FAST.withRetention(Duration.ofHours(1), Duration.ofMillis(200)),
                new ScheduledThreadPoolExecutor(2));

        // a session elsewhere holds one lapsed call's row (a stuck transaction): the sweeps pass it by, and the other
        // housekeeping steps (retention, delivery) do not wait for it
        Connection holder = copies.connect();
        holder.setAutoCommit(false);
        try (PreparedStatement ps = holder.prepareStatement("""
                SELECT id FROM gate_call WHERE program = 'dead' AND state = 'WAITING' ORDER BY id LIMIT 1
                FOR UPDATE""")) {
            ps.executeQuery().close();
        }

        // a live program calls on the same limit all along, each acquire within 5 s or it fails
        AtomicBoolean swept = new AtomicBoolean();
        AtomicInteger granted = new AtomicInteger();
        CopyOnWriteArrayList<Throwable> failures = new CopyOnWriteArrayList<>();
        Thread caller = new Thread(() -> {
            try {
                while (!swept.get()) {
                    Permit p = gate.callers().acquire(limit, CallClass.INTERACTIVE, Duration.ofSeconds(5), "web",
                            CallOptions.NONE);
                    gate.callers().complete(p.callId(), 200);
                    granted.incrementAndGet();
                }
            } catch (Throwable e) {
                failures.add(e);
            }
        }, "live-caller");
        caller.start();
        long t0 = System.nanoTime();
        try {
            GateCopies.await("every lapsed call but the held one to be swept", Duration.ofSeconds(60),
                    () -> count("SELECT count(*) FROM gate_call WHERE program = 'dead' AND state IN "
                            + "('WAITING', 'GRANTED')") == 1);
            GateCopies.await("retention to prune the day-old history", Duration.ofSeconds(60),
                    () -> count("SELECT count(*) FROM gate_call WHERE program = 'old'") == 0);
            holder.rollback();
            holder.close();
            GateCopies.await("the held call to be swept once free", Duration.ofSeconds(10),
                    () -> count("SELECT count(*) FROM gate_call WHERE program = 'dead' AND state IN "
                            + "('WAITING', 'GRANTED')") == 0);
        } finally {
            holder.close();
            swept.set(true);
            caller.join(10_000);
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("lease sweep: 55,000 lapsed calls cleared in " + ms + " ms; " + granted.get()
                + " live grants meanwhile");
        assertTrue(failures.isEmpty(), "the live caller was served all along: " + failures);
        assertTrue(granted.get() > 0, "grants went on");
        assertEquals(50_000, count("SELECT count(*) FROM gate_call WHERE program = 'dead' AND state = 'EXPIRED'"));
        assertEquals(5_000, count("SELECT count(*) FROM gate_call WHERE program = 'dead' AND state = 'ABANDONED'"));
        assertEquals(0, count("SELECT count(*) FROM gate_send s JOIN gate_call c ON c.id = s.call_id "
                + "WHERE c.program = 'dead'"), "a lapsed call is never granted");
    }

    private long count(String sql) {
        try {
            return copies.count(sql);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
