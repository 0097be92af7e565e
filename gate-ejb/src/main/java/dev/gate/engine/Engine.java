package dev.gate.engine;

import dev.gate.client.CallClass;
import dev.gate.client.CallEndedException;
import dev.gate.client.CallOptions;
import dev.gate.client.DeadlineException;
import dev.gate.client.GateException;
import dev.gate.client.GatePausedException;
import dev.gate.client.GateTimeoutException;
import dev.gate.client.Permit;
import dev.gate.client.UnknownLimitException;
import dev.gate.line.CallState;
import dev.gate.line.LimitName;
import dev.gate.store.CallRow;
import dev.gate.store.Calls;
import dev.gate.store.Grant;
import dev.gate.store.GrantPass;
import dev.gate.store.Granter;
import dev.gate.store.Leases;
import dev.gate.store.LimitTable;
import dev.gate.store.LineView;
import dev.gate.store.Outcomes;
import dev.gate.store.Tx;
import dev.gate.wait.Waiters;
import dev.gate.wait.Watchers;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One gate instance. Any number of them, in any number of processes, share one line through the database: a call
 * joined here may be granted by another instance's loop (the listener and the waiter poll bring the news back), and
 * the limit's row lock makes exactly one grant per slot across all of them.
 */
public final class Engine {

    private static final Logger LOG = Logger.getLogger(Engine.class.getName());

    private final String owner;
    private final EngineSettings settings;
    private final ScheduledExecutorService scheduler;
    private final Calls calls;
    private final Granter granter;
    private final Leases leases;
    private final LineView view;
    private final LimitTable limits;
    private final Outcomes outcomes;
    private final dev.gate.store.Estimates estimates;
    private final Waiters waiters = new Waiters();
    private final Watchers watchers = new Watchers();
    private final SlotTimer timer;
    private final GrantListener listener;
    private final Health health;
    private final Semaphore callerTurns;
    private final Tx tx;
    private final List<ScheduledFuture<?>> periodic = new ArrayList<>();
    private long lastHeartbeatNanos;
    private long lastPollNanos;

    /**
     * @param poolName the pool's name, for the refusal message
     * @param poolSize the most connections {@code dataSource} hands out at once; checked against {@link PoolNeeds}
     * @throws IllegalStateException the pool is too small for this instance's background work plus its callers
     */
    public Engine(String owner, DataSource dataSource, String poolName, int poolSize,
                  ScheduledExecutorService scheduler, ThreadFactory threads, EngineSettings settings) {
        this.owner = Objects.requireNonNull(owner);
        this.settings = Objects.requireNonNull(settings);
        PoolNeeds.check(poolName, poolSize, settings);
        this.scheduler = scheduler;
        this.tx = new Tx(dataSource);
        Tx tx = this.tx;
        this.calls = new Calls(tx);
        this.granter = new Granter(tx);
        this.leases = new Leases(tx);
        this.view = new LineView(tx);
        this.limits = new LimitTable(tx);
        this.outcomes = new Outcomes(tx);
        this.estimates = new dev.gate.store.Estimates(tx);
        this.timer = new SlotTimer(scheduler, this::pass);
        this.listener = new GrantListener(dataSource, threads, this::notified, this::unavailable);
        this.health = new Health(paused -> waiters.endAll(paused));
        this.callerTurns = new Semaphore(settings.callerConcurrency(), true);
    }

    public void start() {
        lastHeartbeatNanos = lastPollNanos = System.nanoTime();
        listener.start();
        periodic.add(scheduler.scheduleWithFixedDelay(this::housekeeping, settings.retry().toMillis(),
                settings.retry().toMillis(), TimeUnit.MILLISECONDS));
        timer.armIn(Duration.ZERO);
        LOG.info(() -> "gate instance " + owner + " started");
    }

    /** A clean stop: this instance's waiting calls leave the line and their waiters are told. */
    public void stop() {
        halt();
        try {
            for (Leases.Cleared c : leases.cancelOwned(owner)) {
                LOG.info(() -> "call " + c.callId() + " limit=" + c.limit() + " class=" + c.callClass()
                        + " cancelled: its gate instance is stopping");
            }
        } catch (GatePausedException e) {
            LOG.warning("could not take this instance's waiting calls out of the line (" + e.getMessage()
                    + "); their leases will run out");
        }
        waiters.endAll(new CallEndedException("the gate instance is stopping"));
        LOG.info(() -> "gate instance " + owner + " stopped");
    }

    /** Stops every timer and the listener and leaves the calls as they are, as a crash would. */
    public void halt() {
        timer.stop();
        periodic.forEach(f -> f.cancel(false));
        listener.stop();
    }

    /** Joins the line and blocks until granted, or {@code maxWait} passes (then the call leaves the line). */
    public Permit acquire(String limit, CallClass callClass, Duration maxWait, String program, Duration lease)
            throws GateException {
        return await(join(limit, callClass, program, lease), maxWait);
    }

    /** As above, with the call's options (lease, deadline, concurrency key). */
    public Permit acquireWith(String limit, CallClass callClass, Duration maxWait, String program,
                              CallOptions options) throws GateException {
        if (options.dedupeKey() == null) {
            return await(joinWith(limit, callClass, program, options), maxWait);
        }
        Duration leaseTime = checked(limit, callClass, options.lease());
        AtomicReference<CompletableFuture<Grant>> granted = new AtomicReference<>();
        Calls.Joined joined = joined(limit, options, () -> calls.join(limit, callClass, program, owner, leaseTime,
                options.deadline(), options.concurrencyKey(), options.dedupeKey(),
                callId -> granted.set(waiters.register(callId))));
        if (joined.joinedExisting()) {
            LOG.fine(() -> program + " joined call " + joined.id() + " of limit " + limit + " by its dedupe key");
            return awaitJoined(joined.id(), maxWait);
        }
        Ticket ticket = new Ticket(joined.id(), limit, callClass, granted.get());
        try {
            settle(callerWork(() -> granter.tryGrantDue(limit)));
        } catch (GatePausedException e) {
            waiters.forget(joined.id());
            throw e;
        }
        return await(ticket, maxWait);
    }

    /** A joiner waits for the shared call's grant; its permit says it joined: the first caller calls the vendor. */
    private Permit awaitJoined(long callId, Duration maxWait) throws GateException {
        long until = System.nanoTime() + maxWait.toNanos();
        while (true) {
            CompletableFuture<Void> changed = watchers.watch(callId);
            CallRow row = callerWork(() -> calls.find(callId)).orElseThrow(
                    () -> new CallEndedException("call " + callId + " is gone"));
            if (row.grantedAt() != null) {
                return new Permit(row.id(), row.limit(), row.callClass(), row.enqueuedAt(), row.grantedAt(), true);
            }
            if (row.state() != CallState.WAITING) {
                throw new CallEndedException("the joined call " + callId + " ended without a grant: " + row.state());
            }
            waitFor(changed, until, "the joined call " + callId + " was not granted within " + maxWait, callId);
        }
    }

    /** Waits for the vendor's answer to a call (a joiner's way to share the first caller's outcome). */
    public dev.gate.client.Outcome awaitOutcome(long callId, Duration maxWait) throws GateException {
        long until = System.nanoTime() + maxWait.toNanos();
        while (true) {
            CompletableFuture<Void> changed = watchers.watch(callId);
            CallRow row = callerWork(() -> calls.find(callId)).orElseThrow(
                    () -> new CallEndedException("call " + callId + " is gone"));
            if (row.outcomeStatus() != null) {
                return new dev.gate.client.Outcome(row.outcomeStatus(), row.outcomeRetryAfterSeconds() == null ? null
                        : Duration.ofSeconds(row.outcomeRetryAfterSeconds()));
            }
            if (row.state() == CallState.CANCELLED || row.state() == CallState.EXPIRED) {
                throw new CallEndedException("call " + callId + " ended without an outcome: " + row.state());
            }
            waitFor(changed, until, "no outcome for call " + callId + " within " + maxWait, callId);
        }
    }

    /** Until the call changes (a notification, or the poll), at most until {@code untilNanos}. */
    private static void waitFor(CompletableFuture<Void> changed, long untilNanos, String timeoutMessage, long callId)
            throws GateException {
        long left = untilNanos - System.nanoTime();
        if (left <= 0) {
            throw new GateTimeoutException(timeoutMessage, callId);
        }
        try {
            changed.get(left, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new GateTimeoutException(timeoutMessage, callId);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CallEndedException("interrupted while waiting for call " + callId);
        }
    }

    /**
     * Joins the line (one short transaction) and tries the grant at once in the caller's own transaction: the fast
     * path when the slot is due and nobody is ahead. Otherwise the loop grants it later.
     */
    public Ticket join(String limit, CallClass callClass, String program, Duration lease) throws GateException {
        return joinWith(limit, callClass, program, CallOptions.NONE.withLease(lease));
    }

    /** As {@link #join(String, CallClass, String, Duration)}, with the call's options. */
    public Ticket joinWith(String limit, CallClass callClass, String program, CallOptions options)
            throws GateException {
        Duration leaseTime = checked(limit, callClass, options.lease());
        // the waiter is registered before the call's row commits, so no grant can come before it
        AtomicReference<CompletableFuture<Grant>> granted = new AtomicReference<>();
        long id = joined(limit, options, () -> calls.join(limit, callClass, program, owner, leaseTime,
                options.deadline(), options.concurrencyKey(), null, callId -> granted.set(waiters.register(callId))))
                .id();
        Ticket ticket = new Ticket(id, limit, callClass, granted.get());
        LOG.fine(() -> "call " + id + " limit=" + limit + " class=" + callClass + " joined the line");
        try {
            settle(callerWork(() -> granter.tryGrantDue(limit)));
        } catch (GatePausedException e) {
            waiters.forget(id); // no waiter: the orphan sweep takes the call out once the database answers
            throw e;
        }
        return ticket;
    }

    private Duration checked(String limit, CallClass callClass, Duration lease) throws UnknownLimitException {
        Objects.requireNonNull(callClass, "callClass");
        if (!LimitName.isValid(limit)) {
            throw new UnknownLimitException(limit);
        }
        Duration leaseTime = lease == null ? settings.defaultLease() : lease;
        if (leaseTime.compareTo(settings.minLease()) < 0 || leaseTime.compareTo(settings.maxLease()) > 0) {
            throw new IllegalArgumentException("lease must be within " + settings.minLease() + " and "
                    + settings.maxLease() + ": " + leaseTime);
        }
        return leaseTime;
    }

    /** The owner of a program's calls: the program renews their leases itself (over HTTP), not an instance. */
    public static String programOwner(String program) {
        return "program:" + program;
    }

    /**
     * A program's call joins the line (and takes the fast path when it can). The program keeps it alive by renewing
     * its lease; {@link #whenSettled} tells when it leaves WAITING.
     */
    public JoinedCall joinFor(String program, String limit, CallClass callClass, CallOptions options,
                              String dedupeKey) throws GateException {
        Duration leaseTime = checked(limit, callClass, options.lease());
        String owner = programOwner(program);
        Calls.Joined joined = joined(limit, options, () -> calls.join(limit, callClass, program, owner, leaseTime,
                options.deadline(), options.concurrencyKey(), dedupeKey, callId -> { }));
        long id = joined.id();
        if (joined.joinedExisting()) {
            LOG.fine(() -> program + " joined call " + id + " of limit " + limit + " by its dedupe key: a send saved");
        } else {
            LOG.fine(() -> "call " + id + " limit=" + limit + " class=" + callClass + " joined the line for "
                    + program);
            settle(callerWork(() -> granter.tryGrantDue(limit)));
        }
        return new JoinedCall(callerWork(() -> calls.find(id)).orElseThrow(), joined.joinedExisting());
    }

    /** A program's submission: its call, and whether it joined a live call of the same dedupe key. */
    public record JoinedCall(CallRow call, boolean joined) {
    }

    private Calls.Joined joined(String limit, CallOptions options, DbWork<Optional<Calls.Joined>> join)
            throws GateException {
        try {
            return callerWork(join).orElseThrow(() -> new UnknownLimitException(limit));
        } catch (Calls.DeadlineMiss miss) {
            Duration wait = Duration.between(miss.estimate().now(), miss.estimate().grantAt());
            LOG.info(() -> "a call on limit " + limit + " was refused: its deadline of " + options.deadline()
                    + " is shorter than the estimated wait of " + wait);
            throw new DeadlineException(limit, options.deadline(), miss.estimate().grantAt(), wait);
        }
    }

    /** Position and estimated grant time of a waiting call; empty when it is not waiting. */
    public Optional<dev.gate.store.Estimate> estimate(long callId) throws GatePausedException {
        return callerWork(() -> estimates.of(callId));
    }

    /** A program's own call; another program's call is as good as absent. */
    public Optional<CallRow> callOf(String program, long id) throws GatePausedException {
        return callerWork(() -> calls.findOwned(id, programOwner(program)));
    }

    /** A call its program owns, or joined by a dedupe key: the joiners see it and its outcome. */
    public Optional<CallRow> visibleCall(String program, long id) throws GatePausedException {
        return callerWork(() -> calls.findVisible(id, programOwner(program), program));
    }

    /** Completes when the call leaves WAITING (granted by any instance, cancelled, expired). */
    public CompletableFuture<Void> whenSettled(long callId) {
        return watchers.watch(callId);
    }

    public boolean renew(String program, long id) throws GatePausedException {
        return callerWork(() -> calls.renew(id, programOwner(program)));
    }

    /** A program's heartbeat: one statement renews all of its waiting calls. */
    public int renewAll(String program) throws GatePausedException {
        return callerWork(() -> calls.renewAll(programOwner(program)));
    }

    public boolean cancel(String program, long id) throws GatePausedException {
        boolean cancelled = callerWork(() -> calls.cancelOwned(id, programOwner(program)));
        if (cancelled) {
            watchers.settled(List.of(id));
            timer.armIn(Duration.ZERO); // a key it held may be free now
            LOG.info(() -> "call " + id + " cancelled by " + program);
        }
        return cancelled;
    }

    /** Stores how the vendor answered a program's granted call; it becomes DONE. */
    public boolean outcome(String program, long id, int status, Integer retryAfterSeconds)
            throws GatePausedException {
        boolean recorded = callerWork(() -> outcomes.record(id, programOwner(program), status, retryAfterSeconds))
                == Outcomes.Result.RECORDED;
        if (recorded) {
            timer.armIn(Duration.ZERO); // the call's key, if it had one, is free; a cool-down may have begun
        }
        return recorded;
    }

    /** Waits for a joined call's grant; on timeout the call leaves the line unless the grant came first. */
    public Permit await(Ticket ticket, Duration maxWait) throws GateException {
        try {
            return permit(ticket.granted().get(Math.max(0, maxWait.toNanos()), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            return giveUp(ticket, maxWait);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GateException ge) {
                throw ge;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            callerWork(() -> calls.cancel(ticket.callId()));
            throw new CallEndedException("call " + ticket.callId()
                    + " was cancelled: the waiting thread was interrupted");
        } finally {
            waiters.forget(ticket.callId());
        }
    }

    /** Reports the vendor's status for a granted call; it becomes DONE. */
    public void complete(long callId, int vendorStatus) throws GateException {
        complete(callId, vendorStatus, null);
    }

    /**
     * Reports the vendor's answer for a granted call; it becomes DONE. A rate-limit signal (429, or 503 with
     * Retry-After) pauses the whole limit (see {@link dev.gate.line.CoolDownLadder}).
     */
    public void complete(long callId, int vendorStatus, Integer retryAfterSeconds) throws GateException {
        if (callerWork(() -> outcomes.record(callId, null, vendorStatus, retryAfterSeconds))
                == Outcomes.Result.NOT_GRANTED) {
            timer.armIn(Duration.ZERO);
            String state = callerWork(() -> calls.find(callId)).map(c -> c.state().name()).orElse("unknown");
            throw new GateException("call " + callId + " cannot be completed: it is " + state + ", not GRANTED");
        }
        LOG.fine(() -> "call " + callId + " done: vendor answered " + vendorStatus);
    }

    public String owner() {
        return owner;
    }

    /** Every limit's live numbers, as an operator sees them (caller work: turned away while paused). */
    public List<dev.gate.store.LimitStatus> status() throws GatePausedException {
        return callerWork(view::limits);
    }

    /** One limit's live numbers; empty when there is no such limit. */
    public Optional<dev.gate.store.LimitStatus> status(String limit) throws GatePausedException {
        return callerWork(() -> view.limit(limit));
    }

    public LimitTable limits() {
        return limits;
    }

    /** Creates or changes a limit (an operator's PUT); true when created. */
    public boolean putLimit(String name, dev.gate.line.Pace pace, dev.gate.line.LimitOptions options)
            throws GatePausedException {
        LimitName.require(name);
        return callerWork(() -> limits.put(name, pace, options));
    }

    public Calls calls() {
        return calls;
    }

    /** Whether calls are paused because the database is unavailable. */
    public boolean paused() {
        return health.isPaused();
    }

    /** A caller's database work: turned away at once while paused, and never more of it at once than allowed. */
    private <T> T callerWork(DbWork<T> work) throws GatePausedException {
        health.requireUp();
        boolean turn;
        try {
            turn = callerTurns.tryAcquire(settings.callerWait().toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GatePausedException("interrupted while waiting for a database connection");
        }
        if (!turn) {
            throw new GatePausedException("no database connection free for callers within "
                    + settings.callerWait().toMillis() + " ms");
        }
        try {
            return work.run();
        } catch (GatePausedException e) {
            unavailable(e);
            throw e;
        } finally {
            callerTurns.release();
        }
    }

    @FunctionalInterface
    private interface DbWork<T> {
        T run() throws GatePausedException;
    }

    private void unavailable(GatePausedException e) {
        health.failed(e);
    }

    private Permit giveUp(Ticket ticket, Duration maxWait) throws GateException {
        if (callerWork(() -> calls.cancel(ticket.callId()))) {
            LOG.info(() -> "call " + ticket.callId() + " limit=" + ticket.limit() + " class=" + ticket.callClass()
                    + " cancelled: not granted within " + maxWait);
            throw new GateTimeoutException(ticket.limit(), ticket.callId(), maxWait);
        }
        Optional<CallRow> row = callerWork(() -> calls.find(ticket.callId()));
        if (row.isPresent() && row.get().state() == CallState.GRANTED) {
            return permit(row.get().grant());
        }
        throw new CallEndedException("call " + ticket.callId() + " left the line without a grant: "
                + row.map(r -> r.state().name()).orElse("gone"));
    }

    private static Permit permit(Grant g) {
        return new Permit(g.callId(), g.limit(), g.callClass(), g.enqueuedAt(), g.grantedAt());
    }

    /** The slot loop's pass: every limit with waiting calls, each in its own grant transaction. */
    private void pass() {
        Duration sleep = settings.idlePoll();
        try {
            resumed();
            for (String limit : granter.limitsWithWaitingCalls()) {
                GrantPass p = granter.grantDue(limit);
                deliver(p);
                Duration due = p.dueIn().orElse(sleep);
                if (due.compareTo(sleep) < 0) {
                    sleep = due;
                }
            }
            resumed();
        } catch (GatePausedException e) {
            unavailable(e);
            sleep = settings.retry();
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "slot loop pass failed; retrying in " + settings.retry().toMillis() + " ms", e);
            sleep = settings.retry();
        }
        timer.armIn(sleep);
    }

    private void settle(GrantPass p) {
        deliver(p);
        p.dueIn().ifPresent(timer::armIn);
    }

    private void deliver(GrantPass p) {
        if (!p.grants().isEmpty()) {
            watchers.settled(p.grants().stream().map(Grant::callId).toList());
        }
        for (Grant g : p.grants()) {
            LOG.fine(() -> "call " + g.callId() + " limit=" + g.limit() + " class=" + g.callClass() + " granted at "
                    + g.grantedAt());
            if (g.owner().equals(owner)) {
                waiters.granted(g);
            }
        }
    }

    /**
     * Runs often (every {@code retry}); does each job when it is due: the health probe while paused, the waiter poll
     * every {@code waiterPoll}, the lease heartbeat every {@code heartbeat}.
     */
    private void housekeeping() {
        long now = System.nanoTime();
        try {
            if (health.isPaused()) {
                tx.probe();
                resumed();
            }
            if (now - lastPollNanos >= settings.waiterPoll().toNanos()) {
                lastPollNanos = now;
                expire();
                settleFromTable(waiters.callIds());
                Set<Long> watched = watchers.callIds();
                if (!watched.isEmpty()) {
                    watchers.settled(calls.settled(watched).stream().map(CallRow::id).toList());
                }
            }
            if (now - lastHeartbeatNanos >= settings.heartbeat().toNanos()) {
                lastHeartbeatNanos = now;
                heartbeat();
            }
        } catch (GatePausedException e) {
            unavailable(e);
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "gate housekeeping failed", e);
        }
    }

    /**
     * After an outage: calls whose waiters were told "paused" leave the line before anything is granted again, so
     * nothing is granted to nobody.
     */
    private void resumed() throws GatePausedException {
        if (health.isPaused()) {
            sweepOrphans();
            health.up();
        }
    }

    private void heartbeat() throws GatePausedException {
        Set<Long> live = waiters.callIds();
        leases.renewOwned(owner, live);
        sweepOrphans();
    }

    /** Lapsed leases and passed deadlines: the calls end as EXPIRED (never granted) and their waiters are told. */
    private void expire() throws GatePausedException {
        expired(leases.expireLapsed(), "its lease ran out");
        expired(leases.expirePastDeadline(), "its deadline passed");
    }

    private void expired(List<Leases.Cleared> cleared, String why) {
        for (Leases.Cleared c : cleared) {
            LOG.info(() -> "call " + c.callId() + " limit=" + c.limit() + " class=" + c.callClass() + " expired: "
                    + why + " (owner " + c.owner() + ")");
            if (c.owner().equals(owner)) {
                waiters.ended(c.callId(), new CallEndedException("call " + c.callId() + " expired: " + why));
            }
        }
    }

    private void sweepOrphans() throws GatePausedException {
        Set<Long> abandoned = waiters.abandoned();
        if (abandoned.isEmpty()) {
            return;
        }
        for (Leases.Cleared c : leases.cancelOrphans(owner, abandoned)) {
            LOG.info(() -> "call " + c.callId() + " limit=" + c.limit() + " class=" + c.callClass()
                    + " cancelled: its waiter is gone");
        }
        waiters.swept(abandoned);
    }

    private void notified(List<Long> grantedIds) {
        watchers.settled(grantedIds);
        Set<Long> mine = waiters.callIds();
        List<Long> ours = grantedIds.stream().filter(mine::contains).toList();
        if (!ours.isEmpty()) {
            settleFromTable(ours);
        }
    }

    private void settleFromTable(java.util.Collection<Long> ids) {
        if (ids.isEmpty() || health.isPaused()) {
            return;
        }
        try {
            for (CallRow row : calls.settled(ids)) {
                if (row.state() == CallState.WAITING) {
                    continue;
                }
                if (row.grantedAt() != null) {
                    waiters.granted(row.grant());
                } else {
                    waiters.ended(row.id(), new CallEndedException("call " + row.id() + " left the line without a "
                            + "grant: " + row.state()));
                }
            }
        } catch (GatePausedException e) {
            unavailable(e);
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "checking waiting calls failed", e);
        }
    }
}
