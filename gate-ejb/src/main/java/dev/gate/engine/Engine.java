package dev.gate.engine;

import dev.gate.api.CallEndedException;
import dev.gate.store.CostCeilings;
import dev.gate.store.FreeSlot;
import dev.gate.store.GateTables;
import dev.gate.store.ActionLog;
import dev.gate.domain.CallRow;
import dev.gate.store.CallReads;
import dev.gate.store.Estimates;
import dev.gate.store.Granter;
import dev.gate.store.GroupJoins;
import dev.gate.store.Joins;
import dev.gate.store.IdleKeys;
import dev.gate.store.Keys;
import dev.gate.store.Jpa;
import dev.gate.store.Leases;
import dev.gate.store.Lending;
import dev.gate.store.LimitRemovals;
import dev.gate.store.LimitTable;
import dev.gate.store.LineRoom;
import dev.gate.store.LineView;
import dev.gate.store.OperatorCancels;
import dev.gate.store.OperatorPauses;
import dev.gate.store.Outcomes;
import dev.gate.store.OwnedCalls;
import dev.gate.store.Retention;
import dev.gate.store.StaleKeys;
import dev.gate.store.StoreBusy;
import dev.gate.store.StoreUnavailable;
import dev.gate.store.Tx;
import dev.gate.store.WaitingLines;
import dev.gate.wait.Waiters;
import dev.gate.wait.StateWatches;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * One gate instance, wired: its slot loop ({@link GrantLoop}), its periodic jobs ({@link Housekeeper}), its grant
 * listener, and the three ways in: {@link #callers()} (this instance's blocking callers), {@link #programs()}
 * (programs over HTTP) and {@link #limits()} (operators). Any number of instances, in any number of processes,
 * share one line through the database: a call joined here may be granted by another instance's loop (the listener
 * and the poll bring the news back), and the limit's row lock makes exactly one grant per slot across all of them.
 */
public final class Engine {

    private static final Logger LOG = Logger.getLogger(Engine.class.getName());

    private final String owner;
    private final EngineSettings settings;
    private final ScheduledExecutorService scheduler;
    private final Leases leases;
    private final Jpa jpa;
    private final Waiters waiters = new Waiters();
    private final java.util.concurrent.ExecutorService completions;
    private final Health health;
    private final GrantLoop loop;
    private final Housekeeper housekeeper;
    private final GrantListener listener;
    private final Callers callers;
    private final ProgramCalls programs;
    private final LimitControl limits;
    private final OperatorActions operators;
    private final StateWatches<CallRow> watches;
    private ScheduledFuture<?> ticks;
    private final TableUpkeep upkeep;
    private final TryNow tryNow;
    private final GroupRecording recording;
    private final Joining joining;

    /**
     * @param poolName the pool's name, for the refusal message
     * @param poolSize the most connections {@code dataSource} hands out at once; checked against {@link PoolNeeds}
     * @throws IllegalStateException the pool is too small for this instance's background work plus its callers
     */
    public Engine(String owner, DataSource dataSource, String poolName, int poolSize,
                  ScheduledExecutorService scheduler, ThreadFactory threads, EngineSettings settings) {
        this(owner, dataSource, poolName, poolSize, scheduler, threads, settings, Tally.NONE);
    }

    /** As the other constructor, telling {@code tally} what happens (the operators' counters). */
    public Engine(String owner, DataSource dataSource, String poolName, int poolSize,
                  ScheduledExecutorService scheduler, ThreadFactory threads, EngineSettings settings, Tally tally) {
        this.owner = Objects.requireNonNull(owner);
        this.settings = Objects.requireNonNull(settings);
        PoolNeeds.check(poolName, poolSize, settings);
        this.scheduler = scheduler;
        DataSource lending = Lending.of(dataSource); // however the pool fails to lend, the callers hear "paused"
        Tx tx = new Tx(lending);
        this.jpa = new Jpa(lending);
        // the work nobody waits on (housekeeping, the delivery poll, the slot loop's read, the meters' read) waits out
        // a short stall; a caller's step and a grant do not
        Tx background = tx.ridingStalls();
        Jpa backgroundJpa = jpa.ridingStalls();
        LimitTable limitTable = new LimitTable(tx, jpa);
        CallReads reads = new CallReads(tx, jpa);
        OwnedCalls owned = new OwnedCalls(tx);
        Outcomes outcomes = new Outcomes(tx);
        this.leases = new Leases(background);
        // watches complete on a thread of their own: never on the slot loop's scheduler, whatever a watcher does next
        this.completions = java.util.concurrent.Executors.newSingleThreadExecutor(threads);
        this.watches = new StateWatches<>(completions);
        this.health = new Health(waiters::endAll);
        Admission admission = new Admission(health, settings.callerConcurrency(), settings.callerWait());
        Delivery delivery = new Delivery(owner, new CallReads(background, backgroundJpa), waiters, watches, health,
                tally);
        Recovery recovery = new Recovery(owner, health, tx, leases, waiters);
        this.loop = new GrantLoop(new Granter(tx), new WaitingLines(background), delivery, recovery, health, settings,
                scheduler);
        Keys keys = new Keys(tx);
        StaleKeys staleKeys = new StaleKeys(tx);
        this.housekeeper = new Housekeeper(owner, settings, leases, new Retention(background),
                new IdleKeys(background), new StaleKeys(background), waiters, delivery, recovery, health, loop::wake,
                tally);
        this.listener = new GrantListener(lending, owner, threads, delivery::announced, health::failed);
        KeyedLines lines = new KeyedLines(admission, keys);
        FreeSlot freeSlot = new FreeSlot(tx);
        CallCosts costs = new CallCosts(admission, new CostCeilings(tx));
        Joining joining = new Joining(settings, admission, new Joins(tx), new GroupJoins(tx), new LineRoom(tx),
                owned, freeSlot, waiters, watches, loop, tally, lines, costs);
        this.joining = joining;
        this.tryNow = new TryNow(settings, admission, freeSlot, tally, waiters, lines, costs);
        this.recording = new GroupRecording(admission, outcomes);
        this.callers = new Callers(owner, admission, joining, owned, reads, recording, waiters, watches, loop, tally,
                tryNow);
        this.programs = new ProgramCalls(admission, joining, owned, reads, recording, new Estimates(tx), delivery,
                watches, loop, tryNow);
        this.operators = new OperatorActions(owner, admission, new OperatorPauses(tx), new OperatorCancels(tx),
                new ActionLog(tx), waiters, delivery, loop);
        this.limits = new LimitControl(admission, limitTable, new LimitRemovals(tx), new LineView(jpa),
                new LineView(backgroundJpa), loop, staleKeys, operators);
        this.upkeep = new TableUpkeep(new GateTables(lending), settings, health, threads);
    }

    /**
     * Starts the loop, the jobs and the listener.
     *
     * @throws IllegalStateException the database connections do not keep their session between transactions (a
     *     pooler in transaction mode): this instance's lock and LISTEN would not work, so it does not run
     */
    public void start() {
        listener.start(Duration.ofSeconds(3));
        java.util.Optional<String> refused = listener.refusal();
        if (refused.isPresent()) {
            listener.stop();
            throw new IllegalStateException(refused.get());
        }
        long every = settings.retry().toMillis();
        ticks = scheduler.scheduleWithFixedDelay(housekeeper::tick, every, every, TimeUnit.MILLISECONDS);
        loop.wake();
        upkeep.start();
        LOG.info(() -> "gate instance " + owner + " started");
    }

    /** A clean stop: this instance's waiting calls leave the line and their waiters are told. */
    public void stop() {
        halt();
        try {
            for (Leases.Cleared c : leases.cancelAllOwned(owner)) {
                LOG.info(() -> "call " + c.callId() + " limit=" + c.limit() + " class=" + c.callClass()
                        + " cancelled: its gate instance is stopping");
            }
        } catch (StoreUnavailable | StoreBusy e) {
            LOG.warning("could not take this instance's waiting calls out of the line (" + e.getMessage()
                    + "); their leases will run out");
        }
        waiters.endAll(new CallEndedException("the gate instance is stopping"));
        release();
        LOG.info(() -> "gate instance " + owner + " stopped");
    }

    /** Stops every timer and the listener and leaves the calls as they are, as a crash would. */
    public void halt() {
        loop.stop();
        if (ticks != null) {
            ticks.cancel(false);
        }
        listener.stop();
        upkeep.stop();
        completions.shutdown(); // a watch ended after this completes on the thread that ends it
    }

    /**
     * Frees what a stopped (or halted) instance still holds: its persistence unit. A caller's step after this is
     * turned away as paused ("the gate instance is stopping").
     */
    public void release() {
        jpa.close();
    }

    /** This instance's own callers (EJB clients, batch jobs): they block until granted. */
    public Callers callers() {
        return callers;
    }

    /** Programs over HTTP: they renew their calls' leases and watch them. */
    public ProgramCalls programs() {
        return programs;
    }

    /** The limits, as operators see and change them. */
    public LimitControl limits() {
        return limits;
    }

    /** The way into the line (for tests of this package: its groups). */
    Joining joining() {
        return joining;
    }

    /** Tries and consumes (for tests of this package: the consumes' groups). */
    TryNow tryNow() {
        return tryNow;
    }

    GroupRecording recording() {
        return recording;
    }

    /** The care of the gate's tables: their last check, and a check now. */
    public TableUpkeep tables() {
        return upkeep;
    }

    public OperatorActions operators() {
        return operators;
    }

    /** Whether calls are paused because the database is unavailable. */
    public boolean paused() {
        return health.isPaused();
    }

    /** The calls watched here now (long-polls, joiners): each watch goes when its call leaves WAITING. */
    java.util.Set<Long> watchedCalls() {
        return watches.callIds();
    }
}
