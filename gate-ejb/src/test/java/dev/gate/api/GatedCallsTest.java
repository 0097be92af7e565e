package dev.gate.api;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The report of {@code @Gated} and the server's client filter, against a Gate whose {@code complete} answers as the
 * EJB does during an outage (the EJB's own outage path is OutageIT's): a paused or busy gate is sent the outcome again
 * until it takes it, so a vendor's 429 still pauses the limit; a refusal is not sent again; the caller never hears
 * either.
 */
class GatedCallsTest {

    private static final Permit PERMIT = new Permit(42, "vendor-a", CallClass.SCHEDULED, Instant.EPOCH, Instant.EPOCH);

    /** A gate whose complete throws each of {@code answers} in turn (null: takes it), counting the tries. */
    private static Gate gate(List<Outcome> taken, int[] tries, GateException... answers) {
        return (Gate) Proxy.newProxyInstance(Gate.class.getClassLoader(), new Class<?>[]{Gate.class}, (p, m, args) -> {
            if (!m.getName().equals("complete") || args.length != 2) {
                throw new UnsupportedOperationException(m.getName());
            }
            int i = tries[0]++;
            if (i < answers.length && answers[i] != null) {
                throw answers[i];
            }
            taken.add((Outcome) args[1]);
            return null;
        });
    }

    @Test
    void aReportThePausedOrBusyGateCouldNotTakeIsSentAgainUntilItIs() {
        List<Outcome> taken = new ArrayList<>();
        int[] tries = {0};
        Outcome slowDown = new Outcome(429, Duration.ofSeconds(30));
        GatedCalls.report(gate(taken, tries, new GatePausedException("database down"), new GateBusyException("lock")),
                PERMIT, slowDown, Duration.ofSeconds(10));
        assertEquals(3, tries[0], "paused, busy, then taken");
        assertEquals(List.of(slowDown), taken, "the 429 reached the gate");
    }

    @Test
    void aGateThatStaysPausedIsAWarningNotTheCallersExceptionAndARefusalIsNotSentAgain() {
        List<Outcome> taken = new ArrayList<>();
        int[] tries = {0};
        GatePausedException down = new GatePausedException("database down");
        GatedCalls.report(gate(taken, tries, down, down, down, down, down, down, down, down), PERMIT,
                new Outcome(200, null), Duration.ofMillis(250));
        assertTrue(tries[0] >= 2 && tries[0] < 8, "sent again within its time, then given up: " + tries[0]);
        assertEquals(List.of(), taken);

        int[] once = {0};
        GatedCalls.report(gate(taken, once, new GateException("call 42 is not granted")), PERMIT,
                new Outcome(200, null), Duration.ofSeconds(10));
        assertEquals(1, once[0], "a refusal is the gate's answer: not sent again");
    }
}
