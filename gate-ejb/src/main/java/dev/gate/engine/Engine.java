package dev.gate.engine;

import dev.gate.client.CallClass;
import dev.gate.client.CallEndedException;
import dev.gate.client.CallOptions;
import dev.gate.client.DeadlineException;
import dev.gate.client.GateBusyException;
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
import dev.gate.store.Retention;
import dev.gate.store.StoreBusy;
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
    private final Retention retention;
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
    private long lastPruneNanos;
    private boolean pruneBacklog;

    /** How soon the loop looks again at a limit whose lock another transaction held, or whose grant was busy. */
    static final Duration BUSY_RETRY = Duration.ofMillis(10);

    /** Most tries of one caller step when the database is busy, before the caller hears "busy". */
    static final int BUSY_TRIES = 3;

    /** Retention's batch size and its share of one housekeeping tick, so it never delays a heartbeat for long. */
    static final int PRUNE_BATCH = 2_000;
    static final Duration PRUNE_BUDGET = Duration.ofMillis(100);

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
        this.retention = new Retention(tx);
        this.timer = new SlotTimer(scheduler, this::pass);
        this.listener = new GrantListener(dataSource, owner, threads, this::notified, this::unavailable);
        this.health = new Health(paused -> waiters.endAll(paused));
        this.callerTurns = new Semaphore(settings.callerConcurrency(), true);
    }

    public void start() {
        lastHeartbeatNanos = lastPollNanos = lastPruneNanos = System.nanoTime();
        listener.start(Duration.ofSeconds(1));
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
        } catch (GatePausedException | StoreBusy e) {
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

    /** As above, with the call's options (lease, deadline, concurrency key, dedupe key). */
    public Permit acquireWith(String limit, CallClass callClass, Duration maxWait, String program,
                              CallOptions options) throws GateException {
        Entry entry = enter(limit, callClass, program, owner, options, options.dedupeKey(), true);
        if (entry.joined().joinedExisting()) {
            LOG.fine(() -> program + " joined call " + entry.id() + " of limit " + limit + " by its dedupe key");
            return awaitJoined(entry.id(), maxWait);
        }
        Ticket ticket = new Ticket(entry.id(), limit, callClass, entry.granted());
        fastPath(limit, ticket.callId());
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
            if (row.state() == CallState.CANCELLED || row.state() == CallState.EXPIRED
                    || row.state() == CallState.ABANDONED) {
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

    /** As {@link #join(String, CallClass, String, Duration)}, with the call's options (a dedupe key is not used). */
    public Ticket joinWith(String limit, CallClass callClass, String program, CallOptions options)
            throws GateException {
        Entry entry = enter(limit, callClass, program, owner, options, null, true);
        Ticket ticket = new Ticket(entry.id(), limit, callClass, entry.granted());
        fastPath(limit, ticket.callId());
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
        return dev.gate.store.InstanceLock.PROGRAM_OWNER_PREFIX + program;
    }

    /**
     * A program's call joins the line (and takes the fast path when it can). The program keeps it alive by renewing
     * its lease; {@link #whenSettled} tells when it leaves WAITING.
     */
    public JoinedCall joinFor(String program, String limit, CallClass callClass, CallOptions options,
                              String dedupeKey) throws GateException {
        Entry entry = enter(limit, callClass, program, programOwner(program), options, dedupeKey, false);
        long id = entry.id();
        if (entry.joined().joinedExisting()) {
            LOG.fine(() -> program + " joined call " + id + " of limit " + limit + " by its dedupe key: a send saved");
        } else {
            fastPath(limit, id);
        }
        return new JoinedCall(callerWork(() -> calls.find(id)).orElseThrow(), entry.joined().joinedExisting());
    }

    /** A program's submission: its call, and whether it joined a live call of the same dedupe key. */
    public record JoinedCall(CallRow call, boolean joined) {
    }

    /** A submission's place in the line, and (for a caller waiting here) the future of its grant. */
    private record Entry(Calls.Joined joined, CompletableFuture<Grant> granted) {
        long id() {
            return joined.id();
        }
    }

    /**
     * The one way into the line. With {@code waiter}, a waiter is registered before the call's row commits, so no
     * grant can come before it; if the join fails after that, the waiter goes and the call (if its row committed
     * after all) is ended by the orphan sweep.
     */
    private Entry enter(String limit, CallClass callClass, String program, String callOwner, CallOptions options,
                        String dedupeKey, boolean waiter) throws GateException {
        Duration leaseTime = checked(limit, callClass, options.lease());
        AtomicReference<Long> registered = new AtomicReference<>();
        AtomicReference<CompletableFuture<Grant>> granted = new AtomicReference<>();
        try {
            Calls.Joined joined = callerWork(() -> calls.join(limit, callClass, program, callOwner, leaseTime,
                    options.deadline(), options.concurrencyKey(), dedupeKey, callId -> {
                        if (waiter) {
                            Long before = registered.getAndSet(callId);
                            if (before != null) {
                                waiters.forget(before); // an earlier try that rolled back
                            }
                            granted.set(waiters.register(callId));
                        }
                    })).orElseThrow(() -> new UnknownLimitException(limit));
            if (!joined.joinedExisting()) {
                LOG.fine(() -> "call " + joined.id() + " limit=" + limit + " class=" + callClass
                        + " joined the line for " + program);
            }
            return new Entry(joined, joined.joinedExisting() ? null : granted.get());
        } catch (Calls.DeadlineMiss miss) {
            Duration wait = Duration.between(miss.estimate().now(), miss.estimate().grantAt());
            LOG.info(() -> "a call on limit " + limit + " was refused: its deadline of " + options.deadline()
                    + " is shorter than the estimated wait of " + wait);
            throw new DeadlineException(limit, options.deadline(), miss.estimate().grantAt(), wait);
        } catch (GateException | RuntimeException e) {
            Long id = registered.get();
            if (id != null) {
                waiters.forget(id);
            }
            throw e;
        }
    }

    /**
     * The caller's own grant transaction, right after its join. If it fails, the caller hears of it only after its
     * call has left the line: nothing stays in the line renewed for a caller who was told "no". If the call was
     * granted meanwhile (by another instance's loop), the caller takes that grant as usual.
     */
    private void fastPath(String limit, long callId) throws GateException {
        GateException failure;
        try {
            settle(callerWork(() -> granter.grantDue(limit), 1));
            return;
        } catch (GateException e) {
            failure = e;
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "the fast path of call " + callId + " limit=" + limit + " failed", e);
            failure = new GateException("the gate failed to grant call " + callId + ": " + e.getMessage(), e);
        }
        try {
            if (!calls.cancel(callId)) {
                return; // granted (or ended) meanwhile: its waiter, or its program, learns of it as usual
            }
            waiters.drop(callId);
            watchers.settled(List.of(callId));
            LOG.info("call " + callId + " limit=" + limit + " cancelled: its grant attempt failed ("
                    + failure.getMessage() + ")");
        } catch (GatePausedException | RuntimeException e) {
            // the database cannot take the cancel now: the orphan sweep ends the call once it can
            waiters.orphaned(callId);
            if (!(failure instanceof GatePausedException) && e instanceof GatePausedException paused) {
                unavailable(paused);
            }
        }
        throw failure;
    }

    /** Position and estimated grant time of a waiting call; empty when it is not waiting. */
    public Optional<dev.gate.store.Estimate> estimate(long callId) throws GateException {
        return callerWork(() -> estimates.of(callId));
    }

    /** A program's own call; another program's call is as good as absent. */
    public Optional<CallRow> callOf(String program, long id) throws GateException {
        return callerWork(() -> calls.findOwned(id, programOwner(program)));
    }

    /** A call its program owns, or joined by a dedupe key: the joiners see it and its outcome. */
    public Optional<CallRow> visibleCall(String program, long id) throws GateException {
        return callerWork(() -> calls.findVisible(id, programOwner(program), program));
    }

    /** Completes when the call leaves WAITING (granted by any instance, cancelled, expired). */
    public CompletableFuture<Void> whenSettled(long callId) {
        return watchers.watch(callId);
    }

    /** Renews a program's waiting or granted call's lease. */
    public boolean renew(String program, long id) throws GateException {
        return callerWork(() -> calls.renew(id, programOwner(program)));
    }

    /** A program's heartbeat: one statement renews all of its waiting calls. */
    public int renewAll(String program) throws GateException {
        return callerWork(() -> calls.renewAll(programOwner(program)));
    }

    public boolean cancel(String program, long id) throws GateException {
        boolean cancelled = callerWork(() -> calls.cancelOwned(id, programOwner(program)));
        if (cancelled) {
            watchers.settled(List.of(id));
            timer.armIn(Duration.ZERO); // a key it held may be free now
            LOG.info(() -> "call " + id + " cancelled by " + program);
        }
        return cancelled;
    }

    /** Stores how the vendor answered a program's granted (or abandoned) call; it becomes DONE. */
    public boolean outcome(String program, long id, int status, Integer retryAfterSeconds) throws GateException {
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
            leave(ticket.callId(), "its wait failed: " + e.getCause());
            throw new GateException("waiting for call " + ticket.callId() + " failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            // the interrupt is cleared while the call leaves the line, then set again for the caller to see
            leave(ticket.callId(), "the waiting thread was interrupted");
            Thread.currentThread().interrupt();
            throw new CallEndedException("call " + ticket.callId()
                    + " was cancelled: the waiting thread was interrupted");
        } finally {
            waiters.forget(ticket.callId());
        }
    }

    /** Its waiter is gone: the call leaves the line, or its grant (nobody will take it) is ended. */
    private void leave(long callId, String why) {
        try {
            callerWork(() -> calls.leave(callId)).ifPresent(state -> LOG.info(() -> "call " + callId + " "
                    + state.name().toLowerCase(java.util.Locale.ROOT) + ": " + why));
            waiters.drop(callId);
        } catch (GateException | RuntimeException e) {
            waiters.orphaned(callId); // ended by the orphan sweep once the database answers
        }
    }

    /** Reports the vendor's status for a granted call; it becomes DONE. */
    public void complete(long callId, int vendorStatus) throws GateException {
        complete(callId, vendorStatus, null);
    }

    /**
     * Reports the vendor's answer for a granted call; it becomes DONE. A rate-limit signal (429, or 503 with
     * Retry-After) pauses the whole limit (see {@link dev.gate.line.CoolDownLadder}). A call whose grant lease ran
     * out first (ABANDONED) still takes its outcome.
     */
    public void complete(long callId, int vendorStatus, Integer retryAfterSeconds) throws GateException {
        if (callerWork(() -> outcomes.record(callId, null, vendorStatus, retryAfterSeconds))
                == Outcomes.Result.NOT_GRANTED) {
            timer.armIn(Duration.ZERO);
            String state = callerWork(() -> calls.find(callId)).map(c -> c.state().name()).orElse("unknown");
            throw new GateException("call " + callId + " cannot be completed: it is " + state + ", not GRANTED");
        }
        LOG.fine(() -> "call " + callId + " done: vendor answered " + vendorStatus);
        timer.armIn(Duration.ZERO);
    }

    /** Every limit's live numbers, as an operator sees them (caller work: turned away while paused). */
    public List<dev.gate.store.LimitStatus> status() throws GateException {
        return callerWork(view::limits);
    }

    /** One limit's live numbers; empty when there is no such limit. */
    public Optional<dev.gate.store.LimitStatus> status(String limit) throws GateException {
        return callerWork(() -> view.limit(limit));
    }

    public LimitTable limits() {
        return limits;
    }

    /** Creates or changes a limit (an operator's PUT); true when created. */
    public boolean putLimit(String name, dev.gate.line.Pace pace, dev.gate.line.LimitOptions options)
            throws GateException {
        LimitName.require(name);
        return callerWork(() -> limits.put(name, pace, options));
    }

    /** Removes a limit with no live calls, and its history (an operator's DELETE). */
    public LimitTable.Removal removeLimit(String name) throws GateException {
        LimitTable.Removal removal = callerWork(() -> limits.remove(name));
        if (removal.removed()) {
            LOG.info(() -> "limit " + name + " removed");
        }
        return removal;
    }

    public Calls calls() {
        return calls;
    }

    /** Whether calls are paused because the database is unavailable. */
    public boolean paused() {
        return health.isPaused();
    }

    /** A caller's database work, tried again (a few times) while the database is busy. */
    private <T> T callerWork(DbWork<T> work) throws GateException {
        return callerWork(work, BUSY_TRIES);
    }

    /**
     * A caller's database work: turned away at once while paused, and never more of it at once than allowed. A busy
     * database (a lock held too long elsewhere) is tried again up to {@code tries} times, then the caller hears
     * "busy"; it never pauses calls.
     */
    private <T> T callerWork(DbWork<T> work, int tries) throws GateException {
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
            for (int attempt = 1; ; attempt++) {
                try {
                    return work.run();
                } catch (StoreBusy e) {
                    if (attempt >= tries) {
                        throw new GateBusyException(e.getMessage());
                    }
                }
            }
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
            waiters.drop(ticket.callId());
            LOG.info(() -> "call " + ticket.callId() + " limit=" + ticket.limit() + " class=" + ticket.callClass()
                    + " cancelled: not granted within " + maxWait);
            throw new GateTimeoutException(ticket.limit(), ticket.callId(), maxWait);
        }
        Optional<CallRow> row = callerWork(() -> calls.find(ticket.callId()));
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

    /**
     * The slot loop's pass (never two at once: {@link SlotTimer}): every limit with waiting calls, each in its own
     * grant transaction. A limit whose lock another transaction holds, or whose grant met a busy lock, is looked at
     * again shortly; only a lost database pauses calls.
     */
    private void pass() {
        Duration sleep = settings.idlePoll();
        try {
            resumed();
            for (String limit : granter.limitsWithWaitingCalls()) {
                Duration due;
                try {
                    GrantPass p = granter.grantDue(limit);
                    deliver(p);
                    due = p.skipped() ? BUSY_RETRY : p.dueIn().orElse(sleep);
                } catch (StoreBusy e) {
                    LOG.fine(() -> "limit " + limit + " busy (" + e.getMessage() + "); looking again in "
                            + BUSY_RETRY.toMillis() + " ms");
                    due = BUSY_RETRY;
                }
                if (due.compareTo(sleep) < 0) {
                    sleep = due;
                }
            }
            resumed();
        } catch (GatePausedException e) {
            unavailable(e);
            sleep = settings.retry();
        } catch (StoreBusy e) {
            sleep = BUSY_RETRY;
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "slot loop pass failed; retrying in " + settings.retry().toMillis() + " ms", e);
            sleep = settings.retry();
        }
        timer.armIn(sleep);
    }

    private void settle(GrantPass p) {
        deliver(p);
        p.dueIn().ifPresent(due -> timer.armIn(p.skipped() ? BUSY_RETRY : due));
    }

    private void deliver(GrantPass p) {
        if (!p.grants().isEmpty()) {
            watchers.settled(p.grants().stream().map(Grant::callId).toList());
        }
        for (Grant g : p.grants()) {
            LOG.fine(() -> "call " + g.callId() + " limit=" + g.limit() + " class=" + g.callClass() + " granted at "
                    + g.grantedAt());
            if (g.owner().equals(owner)) {
                // no waiter left (it was told "paused", or gave up): the orphan sweep ends the grant
                waiters.granted(g);
            }
        }
    }

    /**
     * Runs often (every {@code retry}); does each job when it is due: the health probe while paused, the lease
     * heartbeat every {@code heartbeat} (always before leases are cleared, so a live waiter's lease never runs out
     * in the same tick), the waiter poll and lease clearing every {@code waiterPoll}, retention every
     * {@code pruneEvery}.
     */
    private void housekeeping() {
        long now = System.nanoTime();
        try {
            if (health.isPaused()) {
                tx.probe();
                resumed();
            }
            if (now - lastHeartbeatNanos >= settings.heartbeat().toNanos()) {
                lastHeartbeatNanos = now;
                heartbeat();
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
            if (pruneBacklog || now - lastPruneNanos >= settings.pruneEvery().toNanos()) {
                lastPruneNanos = now;
                prune();
            }
        } catch (GatePausedException e) {
            unavailable(e);
        } catch (StoreBusy e) {
            LOG.fine(() -> "gate housekeeping busy (" + e.getMessage() + "); again at the next tick");
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "gate housekeeping failed", e);
        }
    }

    /**
     * Deletes what retention no longer keeps, a batch at a time, for at most {@link #PRUNE_BUDGET} per tick; what is
     * left is taken at the next ticks.
     */
    private void prune() throws GatePausedException {
        long until = System.nanoTime() + PRUNE_BUDGET.toNanos();
        int sends = 0;
        int finished = 0;
        boolean more = true;
        while (more && System.nanoTime() < until) {
            int s = retention.pruneSends(PRUNE_BATCH);
            int c = retention.pruneCalls(settings.retention(), PRUNE_BATCH);
            sends += s;
            finished += c;
            more = s == PRUNE_BATCH || c == PRUNE_BATCH;
        }
        pruneBacklog = more;
        if (sends + finished > 0) {
            int s = sends;
            int c = finished;
            LOG.fine(() -> "retention deleted " + s + " sends and " + c + " finished calls");
        }
    }

    /**
     * After an outage: calls whose waiters were told "paused" leave the line (or, granted meanwhile, end) before
     * anything is granted again, so nothing is granted to nobody.
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

    /**
     * Lapsed leases and passed deadlines: waiting calls end as EXPIRED (never granted) and their waiters are told;
     * grants whose lease ran out without an outcome end as ABANDONED (their keys are free again).
     */
    private void expire() throws GatePausedException {
        expired(leases.expireLapsed(), "its lease ran out");
        expired(leases.expirePastDeadline(), "its deadline passed");
        for (Leases.Cleared c : leases.abandonLapsed()) {
            LOG.info(() -> "call " + c.callId() + " limit=" + c.limit() + " class=" + c.callClass()
                    + " abandoned: granted, but no outcome came within its lease (owner " + c.owner() + ")");
        }
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
        Set<Long> orphans = waiters.abandoned();
        if (orphans.isEmpty()) {
            return;
        }
        for (Leases.Cleared c : leases.endOrphans(orphans)) {
            LOG.info(() -> "call " + c.callId() + " limit=" + c.limit() + " class=" + c.callClass()
                    + (c.state().equals("CANCELLED") ? " cancelled: its caller was told it was not granted"
                    : " abandoned: granted, but its caller was gone (told it was not granted)"));
        }
        waiters.swept(orphans);
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
                if (row.state() == CallState.GRANTED) {
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
