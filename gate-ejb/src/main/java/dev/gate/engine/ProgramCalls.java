package dev.gate.engine;

import dev.gate.api.Attempt;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.GateException;
import dev.gate.store.CallKeys;
import dev.gate.domain.CallRow;
import dev.gate.store.CallReads;
import dev.gate.domain.Estimate;
import dev.gate.store.Estimates;
import dev.gate.store.InstanceLock;
import dev.gate.store.Outcomes;
import dev.gate.store.OwnedCalls;
import dev.gate.wait.StateWatches;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;

/**
 * The calls of programs that reach the gate over HTTP: they do not block here; the program keeps its call alive by
 * renewing its lease, watches it (long-poll) until it leaves WAITING, and reports its outcome. A program sees and
 * acts on its own calls only (and watches calls it joined by a dedupe key).
 */
public final class ProgramCalls {

    private static final Logger LOG = Logger.getLogger(ProgramCalls.class.getName());

    private final Admission admission;
    private final Joining joining;
    private final OwnedCalls owned;
    private final CallReads reads;
    private final GroupRecording outcomes;
    private final VendorCounts vendorCounts = new VendorCounts();
    private final Estimates estimates;
    private final Delivery delivery;
    private final StateWatches<CallRow> watches;
    private final GrantLoop loop;
    private final TryNow tryNow;

    ProgramCalls(Admission admission, Joining joining, OwnedCalls owned, CallReads reads, GroupRecording outcomes,
                 Estimates estimates, Delivery delivery, StateWatches<CallRow> watches, GrantLoop loop, TryNow tryNow) {
        this.tryNow = tryNow;
        this.admission = admission;
        this.joining = joining;
        this.owned = owned;
        this.reads = reads;
        this.outcomes = outcomes;
        this.estimates = estimates;
        this.delivery = delivery;
        this.watches = watches;
        this.loop = loop;
    }

    /** The owner of a program's calls: the program renews their leases itself (over HTTP), not an instance. */
    public static String owner(String program) {
        return InstanceLock.PROGRAM_OWNER_PREFIX + program;
    }

    /**
     * A program's submission: its call, whether it joined a live call of the same dedupe key, and whether it repeated
     * a submission already taken (same submission key: the call is the one made then, as it is now).
     */
    public record Submitted(CallRow call, boolean joined, boolean repeated, CompletableFuture<CallRow> leftWaiting) {

        public Submitted(CallRow call, boolean joined, boolean repeated) {
            this(call, joined, repeated, null);
        }

        /**
         * A new call watched from before its row committed: completes when it leaves WAITING (with the call as it
         * left, when the news carried it whole, else null); else empty.
         */
        public Optional<CompletableFuture<CallRow>> watch() {
            return Optional.ofNullable(leftWaiting);
        }
    }

    /** As below, without a submission key. */
    public Submitted submit(String program, String limit, CallClass callClass, CallOptions options, String dedupeKey)
            throws GateException {
        return submit(program, limit, callClass, options, dedupeKey, null);
    }

    /**
     * A program's call joins the line (and takes the fast path when it can), or joins a call by its dedupe key. With
     * a submission key the program used before (its retry after a lost answer), the call it made then answers.
     */
    public Submitted submit(String program, String limit, CallClass callClass, CallOptions options, String dedupeKey,
                            String submissionKey) throws GateException {
        return submit(program, limit, callClass, options, dedupeKey, submissionKey, false);
    }

    /**
     * As above; {@code watched}: a new call's watch ({@link Submitted#watch}) is registered before its row commits, so
     * an answer held until the call leaves WAITING needs no second read to know it did not miss it.
     */
    public Submitted submit(String program, String limit, CallClass callClass, CallOptions options, String dedupeKey,
                            String submissionKey, boolean watched) throws GateException {
        Joining.Entry entry = joining.enter(limit, callClass, program, owner(program), options,
                new CallKeys(options.concurrencyKey(), dedupeKey, submissionKey),
                watched ? Joining.Hears.WATCH : Joining.Hears.NOBODY);
        CallRow row = entry.row().isPresent() ? entry.row().get()
                : admission.run(() -> reads.find(entry.id())).orElseThrow(); // a joined call: as it is now
        return new Submitted(row, entry.joinedExisting(), entry.repeated(), entry.leftWaiting());
    }

    /** A program's own call; another program's call is as good as absent. */
    public Optional<CallRow> own(String program, long id) throws GateException {
        return admission.run(() -> reads.findOwned(id, owner(program)));
    }

    /** A call the program owns, or joined by a dedupe key: the joiners see it and its outcome. */
    public Optional<CallRow> visible(String program, long id) throws GateException {
        return admission.run(() -> reads.findVisible(id, owner(program), program));
    }

    /** Position and estimated grant time of a waiting call; empty when it is not waiting. */
    public Optional<Estimate> estimate(long callId) throws GateException {
        return admission.run(() -> estimates.of(callId));
    }

    /**
     * Completes (on an executor, never on the thread that learned it) when the call leaves WAITING: with the call as
     * it left when the news carried it whole (a grant made here), else with null (read it).
     */
    public CompletableFuture<CallRow> whenLeftWaiting(long callId) {
        return watches.watch(callId);
    }

    /**
     * A program's try now: its call granted at once if a slot is free this moment (and nobody of its class or a higher
     * one waits), else when to try again; nothing is left in the line. With the program's {@code key}
     * (Idempotency-Key) a try sent again finds the grant it made; without one, a lost answer leaves the grant to end
     * at its lease (the program cannot ask for it again).
     */
    public Tried tryNow(String program, String limit, CallClass callClass, CallOptions options, String key)
            throws GateException {
        return tryNow(program, limit, callClass, options, key, false);
    }

    /** As above; {@code consume}: the call granted is ended in the same statement (DONE, no outcome to report). */
    public Tried tryNow(String program, String limit, CallClass callClass, CallOptions options, String key,
                        boolean consume) throws GateException {
        TryNow.Answer a = tryNow.attempt(limit, callClass, program, owner(program),
                options == null ? CallOptions.NONE : options, key, consume);
        return new Tried(a.attempt(), a.repeated());
    }

    /**
     * A program's try: its answer, and whether its key (Idempotency-Key) named a grant made before: the try was sent
     * again after its answer was lost, and gets that grant.
     */
    public record Tried(Attempt attempt, boolean repeated) {
    }

    /** Renews a program's waiting or granted call's lease. */
    public boolean renew(String program, long id) throws GateException {
        return admission.run(() -> owned.renew(id, owner(program)));
    }

    /** A program's heartbeat: one statement renews all of its waiting calls. */
    public int renewAll(String program) throws GateException {
        return admission.run(() -> owned.renewAll(owner(program)));
    }

    /** The program takes its waiting call out of the line. */
    public boolean cancel(String program, long id) throws GateException {
        boolean cancelled = admission.run(() -> owned.cancelOwned(id, owner(program)));
        if (cancelled) {
            delivery.leftWaiting(List.of(id));
            loop.wake(); // a key it held may be free now
            LOG.info(() -> "call " + id + " cancelled by " + program);
        }
        return cancelled;
    }

    /** Stores how the vendor answered a program's granted (or abandoned) call; it becomes DONE. */
    public boolean abandon(String program, long id) throws GateException {
        boolean abandoned = admission.run(() -> owned.abandonOwned(id, owner(program)));
        if (abandoned) {
            loop.wake(); // a key it held is free now
            LOG.info(() -> "call " + id + " abandoned by " + program + ": granted, given up without a vendor call");
        }
        return abandoned;
    }

    /** The vendor's answer to a program's granted call: DONE (a 429 or 503 with Retry-After cools the limit). */
    public boolean outcome(String program, long id, int status, Integer retryAfterSeconds) throws GateException {
        return outcome(program, id, status, retryAfterSeconds, null, null, null);
    }

    /**
     * As above, with the vendor's own count ({@code remaining} units for {@code resetSeconds}, of {@code quota} if it
     * said; null: none).
     */
    public boolean outcome(String program, long id, int status, Integer retryAfterSeconds, Integer remaining,
                           Long resetSeconds, Integer quota) throws GateException {
        Outcomes.VendorReport report = remaining == null ? null
                : new Outcomes.VendorReport(remaining, resetSeconds, quota);
        // the owner names the program (owner(program)): no separate program filter
        Outcomes.Whose whose = new Outcomes.Whose(owner(program), null);
        Outcomes.Result result = outcomes.record(id, whose, status, retryAfterSeconds, report,
                taken -> vendorCounts.heard(id, program, report, taken));
        if (result == Outcomes.Result.RECORDED_KEY_FREED) {
            loop.wake(); // a call waiting on the key may go now (a cool-down needs no pass: grants check it)
        }
        return result != Outcomes.Result.NOT_GRANTED;
    }
}
