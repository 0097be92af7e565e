package dev.gate.app;

import dev.gate.api.Attempt;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.GateException;
import dev.gate.api.Permit;
import dev.gate.server.SlotLoop;
import dev.gate.engine.ProgramCalls;
import dev.gate.api.CallState;
import dev.gate.domain.CallRow;
import dev.gate.domain.Estimate;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.EJB;
import jakarta.ejb.LocalBean;
import jakarta.ejb.Singleton;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Programs over HTTP: a program submits a call (or joins one by its dedupe key), watches it until it leaves
 * WAITING, keeps it alive by renewing its lease (one call, or all of its calls at once), cancels it, and reports the
 * vendor's answer. A program acts on its own calls only; a call it joined it may watch.
 */
@Singleton
@LocalBean
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class Programs {

    @EJB
    SlotLoop host;

    /**
     * A submission: the call, whether it joined a live call of the same dedupe key, and whether it repeated a
     * submission already taken (its submission key: the program's retry after a lost answer); for a held answer, the
     * new call's watch ({@link #whenLeftWaiting}'s kind).
     */
    public record Submission(CallView call, boolean joined, boolean repeated,
                             Optional<CompletableFuture<Optional<CallView>>> watch) {
    }

    /** Which of a program's calls an action found. */
    public enum Found { OWN, JOINED_ONLY, NONE }

    public Submission submit(String program, String limit, CallClass callClass, CallOptions options, String dedupeKey,
                             String submissionKey) throws GateException {
        return submit(program, limit, callClass, options, dedupeKey, submissionKey, false);
    }

    /**
     * As above; {@code held}: the answer will be held until the call leaves WAITING, on a watch registered before a
     * new call's row commits ({@link Submission#watch}), so a waiting call is answered without its estimate (it is
     * read again, estimate and all, if the hold ends while it still waits).
     */
    public Submission submit(String program, String limit, CallClass callClass, CallOptions options, String dedupeKey,
                             String submissionKey, boolean held) throws GateException {
        ProgramCalls.Submitted s = calls().submit(program, limit, callClass, options, dedupeKey, submissionKey, held);
        return new Submission(held ? viewAlone(s.call()) : view(s.call()), s.joined(), s.repeated(),
                s.watch().map(Programs::asLeft));
    }

    /**
     * A try now's answer: the granted call, or when to try again; {@code repeated}: the try's key named a grant made
     * before (sent again after a lost answer), answered as that call is now.
     */
    public record Tried(Optional<CallView> granted, Duration retryAfter, boolean repeated) {
    }

    /**
     * Try now: the program's call granted at once if a slot is free this moment (and nobody of its class or a higher
     * one waits), else when to try again. One round trip; a fresh grant's view is made from the grant, not read back.
     *
     * @param key the program's Idempotency-Key, or null
     */
    public Tried tryNow(String program, String limit, CallClass callClass, CallOptions options, String key)
            throws GateException {
        return tryNow(program, limit, callClass, options, key, false);
    }

    /**
     * As above; {@code consume}: the call is the request itself (an inbound limit's), granted and ended in the same
     * statement: DONE, no lease, no outcome to report.
     */
    public Tried tryNow(String program, String limit, CallClass callClass, CallOptions options, String key,
                        boolean consume) throws GateException {
        ProgramCalls.Tried t;
        try {
            t = calls().tryNow(program, limit, callClass, options, key, consume);
        } catch (IllegalArgumentException e) {
            throw new GateException(e.getMessage());
        }
        Attempt a = t.attempt();
        if (!a.isGranted()) {
            return new Tried(Optional.empty(), a.retryAfter(), false);
        }
        Permit p = a.permit();
        if (t.repeated() || (options.lease() == null && !consume)) {
            return new Tried(visible(program, p.callId()), Duration.ZERO, t.repeated());
        }
        if (consume) {
            return new Tried(Optional.of(new CallView(p.callId(), limit, callClass, program, CallState.DONE,
                    p.enqueuedAt(), p.grantedAt(), null, null, null, 0, null, null)), Duration.ZERO, false);
        }
        return new Tried(Optional.of(new CallView(p.callId(), limit, callClass, program, CallState.GRANTED,
                p.enqueuedAt(), p.grantedAt(), p.grantedAt().plus(options.lease()), null, null, 0, null, null)),
                Duration.ZERO, false);
    }

    /** A call the program owns or joined; with its position and estimated grant time while it waits. */
    public Optional<CallView> visible(String program, long id) throws GateException {
        Optional<CallRow> row = calls().visible(program, id);
        return row.isEmpty() ? Optional.empty() : Optional.of(view(row.get()));
    }

    /** Whether the call is the program's own, only joined by it, or not its at all. */
    public Found find(String program, long id) throws GateException {
        if (calls().own(program, id).isPresent()) {
            return Found.OWN;
        }
        return calls().visible(program, id).isPresent() ? Found.JOINED_ONLY : Found.NONE;
    }

    /**
     * Completes, on a managed thread, when the call leaves WAITING (granted by any instance, or ended): with the call
     * as it left when the news carried it whole (granted here, nobody else sharing it), else empty (read it). The
     * view is the call's own, as the program that watches it sees it: no other program's watch gets one.
     */
    public CompletableFuture<Optional<CallView>> whenLeftWaiting(long id) {
        return asLeft(calls().whenLeftWaiting(id));
    }

    private static CompletableFuture<Optional<CallView>> asLeft(CompletableFuture<CallRow> watch) {
        return watch.thenApply(row -> Optional.ofNullable(row).map(Programs::viewAlone));
    }

    /** Takes the program's waiting call out of the line; false when it is not waiting. */
    public boolean cancel(String program, long id) throws GateException {
        return calls().cancel(program, id);
    }

    /** Renews the program's waiting or granted call's lease; false when it holds none. */
    public boolean renew(String program, long id) throws GateException {
        return calls().renew(program, id);
    }

    /** The program's heartbeat: renews every one of its waiting calls; answers how many. */
    public int renewAll(String program) throws GateException {
        return calls().renewAll(program);
    }

    /** The program gives up its granted call without calling the vendor; false when the call is not granted. */
    public boolean abandon(String program, long id) throws GateException {
        return calls().abandon(program, id);
    }

    /** The vendor's answer to the program's granted call; false when the call is not granted. */
    public boolean outcome(String program, long id, int status, Integer retryAfterSeconds) throws GateException {
        return calls().outcome(program, id, status, retryAfterSeconds);
    }

    /**
     * As above, with the vendor's own count: {@code remaining} units left for {@code resetSeconds}, of {@code quota}
     * if it said (null: none).
     */
    public boolean outcome(String program, long id, int status, Integer retryAfterSeconds, Integer remaining,
                           Long resetSeconds, Integer quota) throws GateException {
        return calls().outcome(program, id, status, retryAfterSeconds, remaining, resetSeconds, quota);
    }

    private ProgramCalls calls() {
        return host.engine().programs();
    }

    private CallView view(CallRow c) {
        Optional<Estimate> estimate = Optional.empty();
        if (c.state() == dev.gate.api.CallState.WAITING) {
            try {
                estimate = calls().estimate(c.id());
            } catch (GateException e) {
                // the database went between two reads: the call is shown without its estimate
            }
        }
        return view(c, estimate);
    }

    /** The call as its row has it, without a waiting call's position and estimate. */
    private static CallView viewAlone(CallRow c) {
        return view(c, Optional.empty());
    }

    private static CallView view(CallRow c, Optional<Estimate> estimate) {
        return new CallView(c.id(), c.limit(), c.callClass(), c.program(), c.state(), c.enqueuedAt(), c.grantedAt(),
                c.leaseExpiresAt(), c.outcomeStatus(), c.outcomeRetryAfterSeconds(), c.joiners(),
                estimate.map(Estimate::position).orElse(null), estimate.map(Estimate::grantAt).orElse(null));
    }
}
