package dev.gate.api;

import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.ws.rs.core.Response;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;

/**
 * What {@link Gated} and {@link GatedClientFilter} share: the class a call waits in, and the report of its end. Once
 * the vendor was called, its caller hears what the vendor answered, never a failed report of it: a report the gate
 * cannot take for now is sent again for up to a minute, and one it did not take even so is a WARNING (the grant ends
 * at its lease, ABANDONED, as a permit never completed does).
 */
final class GatedCalls {

    private static final Logger LOG = Logger.getLogger(GatedCalls.class.getName());

    private GatedCalls() {
    }

    /** INTERACTIVE when the request marks that a person waits ({@link PersonWaiting}), else the declared class. */
    static CallClass classFor(CallClass declared, BooleanSupplier personWaits) {
        try {
            return personWaits.getAsBoolean() ? CallClass.INTERACTIVE : declared;
        } catch (ContextNotActiveException noRequest) { // a timer, a batch step, a thread of its own: nobody waits
            return declared;
        }
    }

    /** Whether the current request marks that a person waits, looked up where nothing is injected (a filter). */
    static boolean personWaitsHere() {
        try {
            var marker = CDI.current().select(PersonWaiting.class);
            return marker.isResolvable() && marker.get().isWaiting();
        } catch (IllegalStateException noContainer) { // not in a CDI deployment
            return false;
        }
    }

    /** The vendor's answer as a JAX-RS response carries it (none: a 200). */
    static Outcome outcome(Response r) {
        if (r == null) {
            return new Outcome(200, null);
        }
        Map<String, List<String>> headers = new HashMap<>();
        r.getStringHeaders().forEach(headers::put);
        return VendorAnswers.of(r.getStatus(), headers);
    }

    /** How long a report the gate could not take for now (paused, busy) is sent again: as gate-client does. */
    static final Duration REPORT_FOR = Duration.ofMinutes(1);

    static void report(Gate gate, Permit permit, Outcome outcome) {
        report(gate, permit, outcome, REPORT_FOR);
    }

    /**
     * Reports the vendor's answer, sent again with back-off while the gate is paused or busy for up to {@code within}
     * (a 429 must reach it, or the limit does not pause); the same outcome sent twice is taken once. Never throws.
     */
    static void report(Gate gate, Permit permit, Outcome outcome, Duration within) {
        long end = System.nanoTime() + within.toNanos();
        long pauseMs = 100;
        while (true) {
            try {
                gate.complete(permit, outcome);
                return;
            } catch (GatePausedException | GateBusyException forNow) {
                if (System.nanoTime() + pauseMs * 1_000_000 - end > 0) {
                    notRecorded(permit, outcome, forNow.getMessage() + "; sent for " + within.toSeconds() + " s");
                    return;
                }
                try {
                    Thread.sleep(pauseMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    notRecorded(permit, outcome, "interrupted while sending it again");
                    return;
                }
                pauseMs = Math.min(pauseMs * 2, 5_000);
            } catch (GateException | RuntimeException notTold) {
                notRecorded(permit, outcome, notTold.getMessage());
                return;
            }
        }
    }

    private static void notRecorded(Permit permit, Outcome outcome, String why) {
        LOG.warning(() -> "call " + permit.callId() + " limit=" + permit.limit() + ": the vendor answered "
                + outcome.status() + ", but the outcome was not recorded (" + why + "); the grant ends at its lease");
    }

    /** The vendor may not have been called: the grant is given up now (or, if the gate cannot be told, at its lease). */
    static void giveUp(Gate gate, Permit permit) {
        try {
            gate.abandon(permit);
        } catch (GateException | RuntimeException notTold) {
            LOG.warning(() -> "call " + permit.callId() + " limit=" + permit.limit() + ": not given up ("
                    + notTold.getMessage() + "); its lease will end it");
        }
    }
}
