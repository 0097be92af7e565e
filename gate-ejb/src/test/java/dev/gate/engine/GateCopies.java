package dev.gate.engine;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.dev.GateDatabase;
import dev.gate.dev.SendLog;
import dev.gate.dev.TcpProxy;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The engine tests' one setup, as a JUnit 5 extension ({@code @RegisterExtension final GateCopies copies = new
 * GateCopies();}): before each test a fresh database named for the test class, with the gate's schema; the test
 * starts as many gate copies on it as it needs, each with its own connection pool, scheduler and listener, as
 * separate processes would have; after the test every copy halts and its resources close. Reads the tables the way
 * an operator would ({@link GateDatabase}).
 */
final class GateCopies extends GateDatabase implements BeforeEachCallback, AfterEachCallback {

    /** Fast timings for tests: leases from 1 s, heartbeat and polls several times a second. */
    static final EngineSettings FAST = new EngineSettings(Duration.ofSeconds(30), Duration.ofSeconds(1),
            Duration.ofSeconds(300), Duration.ofMillis(300), Duration.ofMillis(200), Duration.ofMillis(200),
            Duration.ofMillis(100), 3, Duration.ofMillis(900));

    static final int POOL = PoolNeeds.connections(FAST);

    private final List<Engine> engines = new ArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();

    @Override
    public void beforeEach(ExtensionContext context) {
        // gate_ + the test class in snake case: each class its own database, made afresh for each test
        String simple = context.getRequiredTestClass().getSimpleName();
        open("gate_" + simple.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT));
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        for (Engine e : engines) {
            e.halt();
            e.release();
        }
        for (AutoCloseable r : resources) {
            r.close();
        }
        engines.clear();
        resources.clear();
    }

    Engine start(String name) {
        return start(name, FAST, new ScheduledThreadPoolExecutor(2));
    }

    Engine start(String name, EngineSettings settings, ScheduledExecutorService scheduler) {
        return start(name, settings, scheduler, pool(PoolNeeds.connections(settings)));
    }

    /** A copy on a pool of the caller's (e.g. one that reaches the database through a proxy). */
    Engine start(String name, EngineSettings settings, ScheduledExecutorService scheduler, HikariDataSource pool) {
        return start(name, settings, scheduler, pool, Tally.NONE);
    }

    /** A copy that tells {@code tally} what happens. */
    Engine start(String name, Tally tally) {
        return start(name, FAST, new ScheduledThreadPoolExecutor(2), pool(PoolNeeds.connections(FAST)), tally);
    }

    /** A copy on a pool of the caller's that tells {@code tally} what happens. */
    Engine start(String name, HikariDataSource pool, Tally tally) {
        return start(name, FAST, new ScheduledThreadPoolExecutor(2), pool, tally);
    }

    private Engine start(String name, EngineSettings settings, ScheduledExecutorService scheduler,
                         HikariDataSource pool, Tally tally) {
        Engine engine = new Engine(name, pool, name + "-pool", pool.getMaximumPoolSize(), scheduler,
                Executors.defaultThreadFactory(), settings, tally);
        engine.start();
        engines.add(engine);
        resources.add(scheduler::shutdownNow);
        resources.add(pool);
        return engine;
    }

    /** Something the test opened that must close with the copies (a proxy, a pool, a process). */
    void closeAfter(AutoCloseable resource) {
        resources.add(resource);
    }

    /** A proxy in front of this test's database that the test can cut, slow or make lose answers; closed after. */
    TcpProxy proxy() throws java.io.IOException {
        TcpProxy proxy = new TcpProxy(server().host(), server().port());
        closeAfter(proxy);
        return proxy;
    }

    /** A copy's pool that reaches this test's database through {@code proxy}. */
    HikariDataSource poolThrough(TcpProxy proxy) {
        return server().poolAt("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + name(), POOL);
    }

    /**
     * As {@link #poolThrough}, lending as the server's pool does when the link stalls ({@code poolRidingStallsAt}),
     * once all its connections are open.
     */
    HikariDataSource poolRidingStallsThrough(TcpProxy proxy) throws InterruptedException {
        HikariDataSource pool = server().poolRidingStallsAt("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/"
                + name(), POOL);
        closeAfter(pool);
        await("the pool's connections to open", Duration.ofSeconds(10),
                () -> pool.getHikariPoolMXBean().getTotalConnections() == POOL);
        return pool;
    }

    /**
     * Writes {@code count} sends into a limit's log as another instance (or a gate before a restart) would have,
     * the first {@code firstAgo} before now and then every {@code apart}.
     */
    void logSends(String limit, int count, Duration firstAgo, Duration apart) throws SQLException {
        // numbered after the limit's last send, as the granter numbers them
        sql("""
                WITH n AS (SELECT send_seq FROM gate_slot WHERE limit_name = ?),
                     logged AS (
                         INSERT INTO gate_send (limit_name, call_id, sent_at, seq)
                         SELECT ?, -i, clock_timestamp() - ? * interval '1 millisecond' + i * ? * interval '1 millisecond',
                                n.send_seq + i + 1
                         FROM n, generate_series(0, ? - 1) i)
                UPDATE gate_slot SET send_seq = send_seq + ? WHERE limit_name = ?""",
                limit, limit, firstAgo.toMillis(), apart.toMillis(), count, count, limit);
    }

    /** The send log of one limit, in grant order. */
    List<Instant> sends(String limit) throws SQLException {
        return sendLog().sends(limit);
    }

    /** The most sends any window (t - window, t] holds. */
    static int fullestWindow(List<Instant> sends, Duration window) {
        return SendLog.fullestWindow(sends, window);
    }

    /** Makes the limit's slot long due, so that only the window caps can hold a call. */
    void slotLongDue(String limit) throws SQLException {
        sql("UPDATE gate_slot SET next_slot_at = clock_timestamp() - interval '1 hour' WHERE limit_name = ?", limit);
    }

    /**
     * Puts the limit's next slot a second away, so that no join takes the fast path, then joins {@code calls}
     * SCHEDULED calls at once and waits for each to be granted: every one went through the slot loop.
     */
    /** {@code calls} calls of {@code program} in {@code limit}'s line (no options), in this order: their tickets. */
    static List<Ticket> join(Engine gate, String limit, int calls, dev.gate.api.CallClass callClass, String program)
            throws Exception {
        List<Ticket> tickets = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            tickets.add(gate.callers().join(limit, callClass, program, dev.gate.api.CallOptions.NONE));
        }
        return tickets;
    }

    void grantAllThroughTheLoop(Engine gate, String limit, int calls, Duration maxWait) throws Exception {
        sql("UPDATE gate_slot SET next_slot_at = clock_timestamp() + interval '1 second' WHERE limit_name = ?", limit);
        List<Ticket> tickets = join(gate, limit, calls, dev.gate.api.CallClass.SCHEDULED, "timer");
        for (Ticket t : tickets) {
            gate.callers().await(t, maxWait);
        }
    }

    /**
     * {@code threads} threads trying {@code limit} now (INTERACTIVE, program "inbound") for {@code span}, each
     * completing its grants at once; {@code options}: a thread's by its number; {@code refused}: each refusal, on the
     * trying thread. The grants' times; fails if a try failed.
     */
    static List<Instant> tryAtOnce(Engine gate, String limit, int threads, Duration span,
                                   java.util.function.IntFunction<dev.gate.api.CallOptions> options,
                                   java.util.function.Consumer<dev.gate.api.Attempt> refused) throws Exception {
        List<Instant> grants = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        long until = System.nanoTime() + span.toNanos();
        List<Thread> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            dev.gate.api.CallOptions mine = options.apply(t);
            Thread thread = new Thread(() -> {
                try {
                    while (System.nanoTime() < until) {
                        dev.gate.api.Attempt a = gate.callers().tryNow(limit,
                                dev.gate.api.CallClass.INTERACTIVE, "inbound", mine);
                        if (a.isGranted()) {
                            grants.add(a.permit().grantedAt());
                            gate.callers().complete(a.permit().callId(), 200);
                        } else {
                            refused.accept(a);
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "try-" + t);
            thread.start();
            running.add(thread);
        }
        for (Thread t : running) {
            t.join();
        }
        if (!failures.isEmpty()) {
            fail("tries failed: " + failures);
        }
        return grants;
    }

    /**
     * A call of {@code callClass} that waits for good (its concurrency key is held by a grant not yet reported), once
     * the limit's next slot is due: a try of its class or a lower one is then behind it and nothing else.
     */
    ProgramCalls.Submitted waitingForGood(Engine gate, String limit, dev.gate.api.CallClass callClass)
            throws Exception {
        dev.gate.api.CallOptions keyed = dev.gate.api.CallOptions.NONE.withConcurrencyKey("account-1");
        ProgramCalls.Submitted holder = gate.programs().submit("m", limit, callClass, keyed, null);
        await("the key holder granted", Duration.ofSeconds(3), () -> state(holder.call().id()).equals("GRANTED"));
        ProgramCalls.Submitted waiting = gate.programs().submit("m", limit, callClass, keyed, null);
        await("the next slot due", Duration.ofSeconds(3), () -> {
            try {
                return count("SELECT count(*) FROM gate_slot WHERE limit_name = ? "
                        + "AND next_slot_at < clock_timestamp()", limit) == 1;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        return waiting;
    }

    /** Waits for a condition on the real clock, failing after {@code timeout}. */
    static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long until = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                fail("timed out after " + timeout + " waiting for: " + what);
            }
            Thread.sleep(20);
        }
    }
}
