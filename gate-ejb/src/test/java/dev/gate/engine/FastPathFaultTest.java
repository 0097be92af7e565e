package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.CallEndedException;
import dev.gate.api.GateBusyException;
import dev.gate.api.GateException;
import dev.gate.api.GatePausedException;
import dev.gate.api.Permit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A caller who hears "no" holds nothing: a failure of the fast path (the grant tried in the join's own transaction)
 * rolls the join back, and a failure of its wait takes its call out of the line before the caller is told, so
 * nothing stays in the line renewed (and later granted to nobody).
 */
class FastPathFaultTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    /**
     * The grant's insert into the send log fails with the given SQLSTATE, the first {@code shots} times (a sequence
     * is not rolled back).
     */
    private void failSendsWith(String sqlState, int shots) throws Exception {
        copies.sql("DROP TRIGGER IF EXISTS fault ON gate_send");
        copies.sql("DROP SEQUENCE IF EXISTS fault_shots");
        copies.sql("CREATE SEQUENCE fault_shots");
        copies.sql("""
                CREATE OR REPLACE FUNCTION fault() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF nextval('fault_shots') <= TG_ARGV[1]::int THEN
                        RAISE EXCEPTION 'injected fault' USING ERRCODE = TG_ARGV[0];
                    END IF;
                    RETURN NEW;
                END $$""");
        copies.sql("CREATE TRIGGER fault BEFORE INSERT ON gate_send FOR EACH ROW EXECUTE FUNCTION fault('"
                + sqlState + "', '" + shots + "')");
    }

    @ParameterizedTest(name = "SQLSTATE {0} on the fast path: {1}")
    @CsvSource({
            "40P01, busy",     // deadlock detected
            "57014, busy",     // statement cancelled (statement_timeout)
            "55P03, busy",     // lock not available (lock_timeout)
            "25006, paused",   // read-only transaction: a standby after a switchover
            "23514, failed",   // anything else: the gate's own bug, still no orphan
    })
    void aFailedFastPathRollsTheJoinBackBeforeTheCallerHears(String sqlState, String told) throws Exception {
        String limit = "faulty-" + sqlState.toLowerCase();
        copies.limit(limit, 10, Duration.ofSeconds(1));
        // only the caller's own grant attempt grants here: the copy's loop never runs
        Engine gate = copies.start("fault-" + sqlState, GateCopies.FAST, new StalledLoopScheduler());
        // a busy moment is tried again: this one lasts every try (the free line's statement, then the join's)
        failSendsWith(sqlState, Admission.BUSY_TRIES + 1);

        GateException e = assertThrows(GateException.class,
                () -> gate.callers().acquire(limit, CallClass.INTERACTIVE, Duration.ofSeconds(5), "web", CallOptions.NONE));
        switch (told) {
            case "busy" -> assertInstanceOf(GateBusyException.class, e);
            case "paused" -> assertInstanceOf(GatePausedException.class, e);
            default -> assertInstanceOf(dev.gate.api.GateFailedException.class, e); // the gate's fault, told so
        }
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ?", limit),
                "the line holds nothing: the join rolled back with its grant before the caller heard " + e);
        assertEquals(0, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit));
        if (told.equals("paused")) {
            GateCopies.await("the copy to resume", Duration.ofSeconds(3), () -> !gate.paused());
        }
        copies.sql("DROP TRIGGER fault ON gate_send");
        // the next call goes through: the fault was in the database, not in the gate
        gate.callers().acquire(limit, CallClass.INTERACTIVE, Duration.ofSeconds(5), "web", CallOptions.NONE);
    }

    @Test
    void aBusyMomentOnTheFastPathIsTriedAgainAndTheCallerIsGranted() throws Exception {
        String limit = "busy-once";
        copies.limit(limit, 10, Duration.ofSeconds(1));
        Engine gate = copies.start("busy-once", GateCopies.FAST, new StalledLoopScheduler());
        failSendsWith("55P03", 1);

        Permit p = gate.callers().acquire(limit, CallClass.INTERACTIVE, Duration.ofSeconds(5), "web",
                CallOptions.NONE);
        assertEquals("GRANTED", copies.state(p.callId()));
        assertEquals(1, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ?", limit),
                "the busy try left nothing behind");
        assertEquals(1, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit));
    }

    @Test
    void anInterruptedWaiterLeavesTheLineBeforeItHears() throws Exception {
        String limit = "interrupted";
        copies.limit(limit, 1, Duration.ofMinutes(1));
        Engine gate = copies.start("interrupted", GateCopies.FAST, new ScheduledThreadPoolExecutor(2));
        gate.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE); // the window is now full
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            Future<?> waiting = caller.submit(() -> {
                try {
                    gate.callers().acquire(limit, CallClass.INTERACTIVE, Duration.ofSeconds(30), "web", CallOptions.NONE);
                    return "granted";
                } catch (CallEndedException ended) {
                    // what the caller hears: by now its call must have left the line
                    return copies.state(copies.ids("SELECT id FROM gate_call WHERE limit_name = ? "
                            + "AND program = 'web'", limit).get(0)) + " " + Thread.currentThread().isInterrupted();
                }
            });
            GateCopies.await("the call to wait", Duration.ofSeconds(5), () -> count(limit) == 1);
            caller.shutdownNow(); // interrupts the waiting thread
            assertEquals("CANCELLED true", waiting.get(5, TimeUnit.SECONDS),
                    "cancelled before the caller heard, and the interrupt is kept for it");
        } finally {
            caller.shutdownNow();
        }
    }

    private long count(String limit) {
        try {
            return copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND state = 'WAITING'", limit);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
