package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallEndedException;
import dev.gate.api.CallOptions;
import dev.gate.api.GateTimeoutException;
import dev.gate.api.OperatorAction;
import dev.gate.api.Permit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An operator's hand on the line, on the real clock: a paused limit grants nothing until resumed; a drained
 * program's waiting caller is told at once, not at its wait's end; each action is recorded with who did it.
 */
class OperatorActionsTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @Test
    void aPausedLimitGrantsNothingUntilResumed() throws Exception {
        copies.limit("paused-by-hand", 100, Duration.ofSeconds(1));
        Engine gate = copies.start("operated");
        Instant until = gate.operators().pause("paused-by-hand", Duration.ofSeconds(30), "ops");
        assertTrue(until.isAfter(Instant.now().plusSeconds(25)), "until " + until);
        assertThrows(GateTimeoutException.class, () -> gate.callers().acquire("paused-by-hand",
                CallClass.INTERACTIVE, Duration.ofSeconds(1), "web", CallOptions.NONE));

        CompletableFuture<Permit> waiting = acquiring(gate, "paused-by-hand", CallClass.INTERACTIVE, "web");
        GateCopies.await("the call to wait", Duration.ofSeconds(5),
                () -> count("SELECT count(*) FROM gate_call WHERE state = 'WAITING'") == 1);
        gate.operators().resume("paused-by-hand", "ops");
        // granted well within its 30 s wait: the resume wakes the loop, and the pause had 30 s left
        Permit granted = waiting.get(10, TimeUnit.SECONDS);
        assertTrue(granted.callId() > 0);
    }

    @Test
    void aDrainedProgramsWaitingCallerIsToldAtOnceAndTheActionsAreRecorded() throws Exception {
        copies.limit("drained", 1, Duration.ofMinutes(1));
        Engine gate = copies.start("drainer");
        gate.callers().acquire("drained", CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE);
        CompletableFuture<Permit> worker = acquiring(gate, "drained", CallClass.BACKFILL, "worker");
        GateCopies.await("the worker's call to wait", Duration.ofSeconds(5),
                () -> count("SELECT count(*) FROM gate_call WHERE state = 'WAITING' AND program = 'worker'") == 1);
        assertEquals(1, gate.operators().drain("worker", null, "ops"));
        // told long before its 30 s wait ends, and told why
        ExecutionException told = assertThrows(ExecutionException.class, () -> worker.get(10, TimeUnit.SECONDS));
        assertInstanceOf(CallEndedException.class, told.getCause().getCause(), told.toString());
        assertTrue(told.getCause().getCause().getMessage().contains("drained by operator ops"));
        assertEquals(0, gate.operators().drain("worker", null, "ops"), "nothing left to drain");
        assertFalse(gate.operators().cancel("drained", 999_999, "ops"), "no such waiting call");

        List<OperatorAction> recent = gate.operators().recent(10);
        assertEquals(List.of("ops drain program worker 0 waiting calls cancelled",
                        "ops drain program worker 1 waiting calls cancelled"),
                recent.stream().map(a -> a.getActor() + " " + a.getAction() + " " + a.getTarget() + " " + a.getDetail())
                        .toList(), "newest first");
    }

    /** A caller blocked in acquire (up to 30 s) on another thread. */
    private static CompletableFuture<Permit> acquiring(Engine gate, String limit, CallClass callClass, String program) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return gate.callers().acquire(limit, callClass, Duration.ofSeconds(30), program, CallOptions.NONE);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private long count(String sql) {
        try {
            return copies.count(sql);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
