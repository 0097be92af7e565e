package dev.gate.app;

import dev.gate.api.Attempt;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.GateException;
import dev.gate.api.Outcome;
import dev.gate.api.Permit;
import dev.gate.server.SlotLoop;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.EJB;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * This server's callers (the remote {@code Gate} view, batch jobs): join the line and wait for the grant, report the
 * vendor's answer, wait for a shared call's outcome. No transaction is held while a caller waits, and bean-managed
 * concurrency means waiting callers never queue on a bean lock or an instance pool.
 */
@Singleton
@LocalBean
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Line {

    @EJB
    SlotLoop host;

    /** Joins the line and blocks until granted or {@code maxWait} passes (the call then leaves the line). */
    public Permit acquire(String limit, CallClass callClass, Duration maxWait, String program, CallOptions options)
            throws GateException {
        try {
            return host.engine().callers().acquire(limit, callClass, maxWait, program,
                    options == null ? CallOptions.NONE : options);
        } catch (IllegalArgumentException e) {
            throw new GateException(e.getMessage());
        }
    }

    /**
     * As above, for a caller that may stop wanting the call while it waits (a batch job asked to stop): asked every
     * second; once it says no, the call leaves the line and {@code CallEndedException} is thrown. No dedupe key.
     */
    public Permit acquire(String limit, CallClass callClass, Duration maxWait, String program, CallOptions options,
                          BooleanSupplier wanted) throws GateException {
        try {
            return host.engine().callers().acquire(limit, callClass, maxWait, program,
                    options == null ? CallOptions.NONE : options, wanted);
        } catch (IllegalArgumentException e) {
            throw new GateException(e.getMessage());
        }
    }

    /** The vendor's answer to a granted call; a 429 (or 503 with Retry-After) pauses the limit for everyone. */
    public void complete(long callId, int vendorStatus, Duration retryAfter) throws GateException {
        host.engine().callers().complete(callId, vendorStatus,
                retryAfter == null ? null : Math.toIntExact(Math.max(0, retryAfter.toSeconds())));
    }

    /** As above, for {@code program}'s own call only: another program's call is refused as not granted. */
    public void complete(long callId, String program, int vendorStatus, Duration retryAfter) throws GateException {
        host.engine().callers().complete(callId, program, vendorStatus,
                retryAfter == null ? null : Math.toIntExact(Math.max(0, retryAfter.toSeconds())));
    }

    /** As above, with the vendor's own count when the outcome carries one. */
    public void complete(long callId, String program, Outcome outcome) throws GateException {
        host.engine().callers().complete(callId, program, outcome.status(), outcome.retryAfter() == null ? null
                        : Math.toIntExact(Math.max(0, outcome.retryAfter().toSeconds())),
                outcome.remaining(), outcome.reset() == null ? null : outcome.reset().toSeconds(), outcome.quota());
    }

    /** Try now: granted at once if a slot is free this moment, else when to try again; nothing stays in the line. */
    public Attempt tryNow(String limit, CallClass callClass, String program, CallOptions options)
            throws GateException {
        try {
            return host.engine().callers().tryNow(limit, callClass, program, options);
        } catch (IllegalArgumentException e) {
            throw new GateException(e.getMessage());
        }
    }

    /** Try now and consume: granted and ended at once (DONE, no outcome to report), else when to try again. */
    public Attempt tryConsume(String limit, CallClass callClass, String program, CallOptions options)
            throws GateException {
        try {
            return host.engine().callers().tryConsume(limit, callClass, program, options);
        } catch (IllegalArgumentException e) {
            throw new GateException(e.getMessage());
        }
    }

    /** Gives a granted call up without a vendor call: ABANDONED now, its keys free (false: it was not granted). */
    public boolean abandon(Permit permit) throws GateException {
        return host.engine().callers().abandon(permit);
    }

    /** Waits for the vendor's answer to a call (a dedupe joiner's way to share the first caller's outcome). */
    public Outcome awaitOutcome(long callId, Duration maxWait) throws GateException {
        return host.engine().callers().awaitOutcome(callId, maxWait);
    }
}
