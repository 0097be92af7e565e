package dev.gate.engine;

import dev.gate.api.Attempt;
import dev.gate.api.CallClass;
import dev.gate.api.CallEndedException;
import dev.gate.api.CallOptions;
import dev.gate.api.GateException;
import dev.gate.api.GatePausedException;
import dev.gate.api.GateTimeoutException;
import dev.gate.api.Outcome;
import dev.gate.api.Permit;
import dev.gate.api.CallState;
import dev.gate.store.CallKeys;
import dev.gate.domain.CallRow;
import dev.gate.store.CallReads;
import dev.gate.domain.Grant;
import dev.gate.store.Outcomes;
import dev.gate.store.OwnedCalls;
import dev.gate.wait.Waiters;
import dev.gate.wait.StateWatches;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;

/**
 * The calls of this instance's own callers (EJB clients, batch jobs): they block until granted, and this instance
 * renews their leases while they wait. A caller that stops waiting (timeout, interrupt) takes its call out of the
 * line before it hears of it. A dedupe joiner waits on the call it shares ({@link JoinedCalls}).
 */
public final class Callers {

    private static final Logger LOG = Logger.getLogger(Callers.class.getName());

    private final String owner;
    private final Admission admission;
    private final Joining joining;
    private final OwnedCalls owned;
    private final CallReads reads;
    private final GroupRecording outcomes;
    private final VendorCounts vendorCounts = new VendorCounts();
    private final Waiters waiters;
    private final JoinedCalls joined;
    private final GrantLoop loop;
    private final Tally tally;
    private final TryNow tryNow;

    Callers(String owner, Admission admission, Joining joining, OwnedCalls owned, CallReads reads,
            GroupRecording outcomes, Waiters waiters, StateWatches<CallRow> watches, GrantLoop loop, Tally tally,
            TryNow tryNow) {
        this.tryNow = tryNow;
        this.tally = tally;
        this.owner = owner;
        this.admission = admission;
        this.joining = joining;
        this.owned = owned;
        this.reads = reads;
        this.outcomes = outcomes;
        this.waiters = waiters;
        this.joined = new JoinedCalls(admission, reads, watches);
        this.loop = loop;
    }

    /** How often a waiting caller that may stop wanting its call is asked whether it still does. */
    static final Duration WANTED_CHECK = Duration.ofSeconds(1);

    /** Joins the line and blocks until granted, or {@code maxWait} passes (then the call leaves the line). */
    public Permit acquire(String limit, CallClass callClass, Duration maxWait, String program, Duration lease)
            throws GateException {
        return await(join(limit, callClass, program, CallOptions.NONE.withLease(lease)), maxWait);
    }

    /** As above, with the call's options (lease, deadline, concurrency key, dedupe key). */
    public Permit acquire(String limit, CallClass callClass, Duration maxWait, String program, CallOptions options)
            throws GateException {
        return acquire(limit, callClass, maxWait, program, options, () -> true);
    }

    /**
     * As above, for a caller that may stop wanting the call while it waits (see {@link #await(Ticket, Duration,
     * BooleanSupplier)}).
     */
    public Permit acquire(String limit, CallClass callClass, Duration maxWait, String program, CallOptions options,
                          BooleanSupplier wanted) throws GateException {
        Joining.Entry entry = joining.enter(limit, callClass, program, owner, options,
                CallKeys.of(options.concurrencyKey(), options.dedupeKey()), Joining.Hears.WAITER);
        if (entry.joinedExisting()) {
            return joined.awaitJoined(entry.id(), maxWait);
        }
        Ticket ticket = new Ticket(entry.id(), limit, callClass, entry.granted());
        return await(ticket, maxWait, wanted);
    }

    /** As {@link #join(String, CallClass, String, CallOptions)}, with a lease and no other option. */
    public Ticket join(String limit, CallClass callClass, String program, Duration lease) throws GateException {
        return join(limit, callClass, program, CallOptions.NONE.withLease(lease));
    }

    /** Joins the line (and takes the fast path when it can) without waiting; {@link #await} waits. */
    public Ticket join(String limit, CallClass callClass, String program, CallOptions options) throws GateException {
        Joining.Entry entry = joining.enter(limit, callClass, program, owner, options,
                CallKeys.of(options.concurrencyKey(), null), Joining.Hears.WAITER);
        Ticket ticket = new Ticket(entry.id(), limit, callClass, entry.granted());
        return ticket;
    }

    /** Waits for a joined call's grant; on timeout the call leaves the line unless the grant came first. */
    public Permit await(Ticket ticket, Duration maxWait) throws GateException {
        return await(ticket, maxWait, () -> true);
    }

    /**
     * As {@link #await(Ticket, Duration)}, asking {@code wanted} every {@link #WANTED_CHECK} whether the caller still
     * wants the call (a batch job asked to stop does not): once it does not, the call leaves the line, unless the
     * grant came first, and the caller hears {@link CallEndedException}.
     */
    public Permit await(Ticket ticket, Duration maxWait, BooleanSupplier wanted) throws GateException {
        long until = System.nanoTime() + Math.max(0, maxWait.toNanos());
        try {
            while (true) {
                long slice = Math.max(0, Math.min(until - System.nanoTime(), WANTED_CHECK.toNanos()));
                try {
                    return permit(ticket.granted().get(slice, TimeUnit.NANOSECONDS));
                } catch (TimeoutException e) {
                    if (System.nanoTime() - until >= 0) {
                        return giveUp(ticket, maxWait, null);
                    }
                    if (!wanted.getAsBoolean()) {
                        return giveUp(ticket, maxWait, "its caller no longer wants it");
                    }
                }
            }
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GatePausedException) {
                tally.turnedAwayPaused(); // joined, then woken: calls are paused (refused at the door: Joining)
            }
            if (e.getCause() instanceof GateException ge) {
                throw ge;
            }
            joining.leave(ticket.callId(), "its wait failed: " + e.getCause());
            throw new GateException("waiting for call " + ticket.callId() + " failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            // the interrupt is cleared while the call leaves the line, then set again for the caller to see
            joining.leave(ticket.callId(), "the waiting thread was interrupted");
            Thread.currentThread().interrupt();
            throw new CallEndedException("call " + ticket.callId()
                    + " was cancelled: the waiting thread was interrupted");
        } finally {
            waiters.forget(ticket.callId());
        }
    }

    /** Waits for the vendor's answer to a call (a joiner's way to share the first caller's outcome). */
    public Outcome awaitOutcome(long callId, Duration maxWait) throws GateException {
        return joined.awaitOutcome(callId, maxWait);
    }

    /** Reports the vendor's status for a granted call; it becomes DONE. */
    public void complete(long callId, int vendorStatus) throws GateException {
        complete(callId, vendorStatus, null);
    }

    /**
     * Reports the vendor's answer for a granted call; it becomes DONE. A rate-limit signal (429, or 503 with
     * Retry-After) pauses the whole limit (see {@link dev.gate.rules.CoolDownLadder}). A call whose grant lease ran
     * out first (ABANDONED) still takes its outcome. The same outcome sent again (its first answer was lost) is
     * accepted and changes nothing.
     */
    public void complete(long callId, int vendorStatus, Integer retryAfterSeconds) throws GateException {
        complete(callId, null, vendorStatus, retryAfterSeconds);
    }

    /**
     * As {@link #complete(long, int, Integer)}, for {@code program}'s call only (an EJB caller, by its principal);
     * another program's is refused as not granted. Any server of the program's may report it (a remote client may
     * reach another server than the one it acquired on).
     */
    public void complete(long callId, String program, int vendorStatus, Integer retryAfterSeconds)
            throws GateException {
        complete(callId, program, vendorStatus, retryAfterSeconds, null, null, null);
    }

    /**
     * As above, with the vendor's own count ({@code remaining} units for {@code resetSeconds}, of {@code quota} if it
     * said; null: none): until its
     * reset the limit sends no more
     * than the vendor said was left ({@link dev.gate.rules.VendorCount}).
     */
    public void complete(long callId, String program, int vendorStatus, Integer retryAfterSeconds,
                         Integer remaining, Long resetSeconds, Integer quota) throws GateException {
        Outcomes.VendorReport report = remaining == null ? null
                : new Outcomes.VendorReport(remaining, resetSeconds, quota);
        Outcomes.Whose whose = new Outcomes.Whose(null, program);
        Outcomes.Result result = outcomes.record(callId, whose, vendorStatus, retryAfterSeconds, report,
                taken -> vendorCounts.heard(callId, program, report, taken));
        if (result == Outcomes.Result.RECORDED_KEY_FREED) {
            loop.wake(); // a call waiting on the key may go now (a cool-down needs no pass: grants check it)
        }
        if (result == Outcomes.Result.NOT_GRANTED) {
            String state = admission.run(() -> reads.find(callId))
                    .filter(c -> program == null || program.equals(c.program()))
                    .map(c -> c.state().name()).orElse("unknown");
            throw new GateException("call " + callId + " cannot be completed: it is " + state + ", not GRANTED");
        }
        LOG.fine(() -> "call " + callId + " done: vendor answered " + vendorStatus);
    }

    /**
     * Try now: a permit at once if a slot of {@code limit} is free at this moment (and no call of this class or a
     * higher one waits), else when to try again; nothing is left in the line. One round trip. Its only option is the
     * lease (the grant's, until the outcome is reported).
     */
    public Attempt tryNow(String limit, CallClass callClass, String program, CallOptions options)
            throws GateException {
        return tryNow.attempt(limit, callClass, program, owner, options == null ? CallOptions.NONE : options, null)
                .attempt();
    }

    /**
     * Try now and consume: the call granted and ended in one statement (DONE: no lease, no outcome to report), else
     * when to try again; nothing is left in the line.
     */
    public Attempt tryConsume(String limit, CallClass callClass, String program, CallOptions options)
            throws GateException {
        return tryNow.attempt(limit, callClass, program, owner, options == null ? CallOptions.NONE : options, null,
                true).attempt();
    }

    /**
     * Gives a granted call of this server's up without a vendor call (the caller failed before the vendor): ABANDONED
     * at once rather than at its lease's end, so its concurrency key and dedupe key are free now.
     */
    public boolean abandon(Permit permit) throws GateException {
        if (permit.joined()) {
            return false; // a dedupe joiner shares another caller's call: the grant is that caller's to give up
        }
        boolean abandoned = admission.run(() -> owned.abandonOwned(permit.callId(), owner));
        if (abandoned) {
            loop.wake(); // a call waiting on its key may go now
            LOG.info(() -> "call " + permit.callId() + " limit=" + permit.limit() + " class=" + permit.callClass()
                    + " abandoned by its caller: granted, given up without a vendor call");
        }
        return abandoned;
    }

    /** The wait is over ({@code unwanted} says why, or null: the time passed): the call leaves, unless granted. */
    private Permit giveUp(Ticket ticket, Duration maxWait, String unwanted) throws GateException {
        if (admission.run(() -> owned.cancel(ticket.callId()))) {
            waiters.drop(ticket.callId());
            String why = unwanted == null ? "not granted within " + maxWait : unwanted;
            LOG.info(() -> "call " + ticket.callId() + " limit=" + ticket.limit() + " class=" + ticket.callClass()
                    + " cancelled: " + why);
            if (unwanted != null) {
                throw new CallEndedException("call " + ticket.callId() + " left the line: " + unwanted);
            }
            throw new GateTimeoutException(ticket.limit(), ticket.callId(), maxWait);
        }
        Optional<CallRow> row = admission.run(() -> reads.find(ticket.callId()));
        if (row.isPresent() && row.get().state() == CallState.GRANTED) {
            waiters.granted(row.get().grant()); // the grant won the race: the caller takes it, nobody abandons it
            return permit(row.get().grant());
        }
        throw new CallEndedException("call " + ticket.callId() + " left the line without a grant: "
                + row.map(r -> r.state().name()).orElse("gone"));
    }

    private static Permit permit(Grant g) {
        return new Permit(g.callId(), g.limit(), g.callClass(), g.enqueuedAt(), g.grantedAt());
    }
}
