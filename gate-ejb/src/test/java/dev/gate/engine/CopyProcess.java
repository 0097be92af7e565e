package dev.gate.engine;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.gate.api.CallClass;
import dev.gate.api.GateException;
import dev.gate.api.GatePausedException;
import dev.gate.api.Permit;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One gate copy in a JVM of its own, as a real server process would be: its own pool, scheduler, listener and
 * callers. {@link KilledCopyTest} starts two of them and kills one with SIGKILL.
 *
 * <p>Arguments: {@code jdbcUrl user password instance limit flooders callClass leaseMs maxSeconds}. It starts an
 * {@link Engine} with fast timings, runs {@code flooders} threads in a closed loop (acquire, complete(200), acquire
 * ...) on {@code limit} in {@code callClass} with a lease of {@code leaseMs}, prints {@code READY} once started and
 * {@code granted <n> errors <m>} every 250 ms, and runs until it is killed. It never outlives its parent process nor
 * {@code maxSeconds}. A SIGTERM stops the engine cleanly (its waiting calls leave the line).
 */
public final class CopyProcess {

    /** Heartbeat of the child copies; the lease they ask for must be at least 3 of these. */
    static final Duration HEARTBEAT = Duration.ofMillis(300);
    static final Duration WAITER_POLL = Duration.ofMillis(200);

    private CopyProcess() {
    }

    /** The timings of a child copy: {@link GateCopies#FAST}, with room for the flooders among the callers. */
    static EngineSettings settings(int flooders) {
        return new EngineSettings(Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofSeconds(300), HEARTBEAT,
                WAITER_POLL, Duration.ofMillis(200), Duration.ofMillis(100), flooders + 2, Duration.ofMillis(900));
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 9) {
            System.err.println("usage: CopyProcess jdbcUrl user password instance limit flooders callClass leaseMs"
                    + " maxSeconds");
            System.exit(2);
        }
        String url = args[0];
        String user = args[1];
        String password = args[2];
        String instance = args[3];
        String limit = args[4];
        int flooders = Integer.parseInt(args[5]);
        CallClass callClass = CallClass.valueOf(args[6]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[7]));
        long maxSeconds = Long.parseLong(args[8]);
        EngineSettings settings = settings(flooders);
        if (lease.compareTo(HEARTBEAT.multipliedBy(3)) < 0 || lease.compareTo(settings.minLease()) < 0) {
            throw new IllegalArgumentException("lease " + lease + " must be at least 3 heartbeats (" + HEARTBEAT
                    + ") and at least " + settings.minLease());
        }

        // never left running: not after maxSeconds, not after the test's JVM is gone
        Thread bound = new Thread(() -> {
            try {
                Thread.sleep(TimeUnit.SECONDS.toMillis(maxSeconds));
            } catch (InterruptedException e) {
                return;
            }
            System.out.println("BOUND " + maxSeconds + " s reached: exiting");
            System.out.flush();
            Runtime.getRuntime().halt(3);
        }, "copy-bound");
        bound.setDaemon(true);
        bound.start();
        ProcessHandle.current().parent().ifPresent(p -> p.onExit().thenRun(() -> Runtime.getRuntime().halt(4)));

        int poolSize = PoolNeeds.connections(settings);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(poolSize);
        config.setConnectionTimeout(500);
        config.setValidationTimeout(250);
        config.setInitializationFailTimeout(-1);
        config.setPoolName(instance + "-pool");
        HikariDataSource pool = new HikariDataSource(config);
        warm(pool, poolSize);
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(2);
        Engine engine = new Engine(instance, pool, instance + "-pool", poolSize, scheduler,
                Executors.defaultThreadFactory(), settings);
        engine.start();

        AtomicBoolean stopping = new AtomicBoolean();
        AtomicLong granted = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < flooders; i++) {
            Thread t = new Thread(() -> flood(engine, instance, limit, callClass, lease, stopping, granted,
                    errors),
                    instance + "-flooder-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stopping.set(true);
            threads.forEach(Thread::interrupt);
            engine.stop();
            scheduler.shutdownNow();
            pool.close();
            System.out.println("STOPPED granted " + granted.get() + " errors " + errors.get());
            System.out.flush();
        }, "copy-stop"));
        threads.forEach(Thread::start);
        System.out.println("READY " + instance + " pid " + ProcessHandle.current().pid());
        System.out.flush();

        while (true) {
            Thread.sleep(250);
            System.out.println("granted " + granted.get() + " errors " + errors.get());
            System.out.flush();
        }
    }

    /**
     * Opens every connection of the pool once before the engine starts: in a cold JVM on a busy machine the first
     * connections can take longer than the pool's 500 ms timeout, which the engine would take for an outage.
     */
    private static void warm(HikariDataSource pool, int size) throws InterruptedException {
        List<Connection> held = new ArrayList<>();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (held.size() < size) {
            try {
                held.add(pool.getConnection());
            } catch (SQLException e) {
                if (System.nanoTime() > until) {
                    throw new IllegalStateException("the pool did not fill within 30 s: " + e.getMessage(), e);
                }
                Thread.sleep(50);
            }
        }
        for (Connection c : held) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // back to the pool or discarded: either way the pool refills
            }
        }
    }

    private static void flood(Engine engine, String instance, String limit, CallClass callClass, Duration lease,
                              AtomicBoolean stopping, AtomicLong granted, AtomicLong errors) {
        while (!stopping.get()) {
            try {
                Permit permit = engine.callers().acquire(limit, callClass, Duration.ofSeconds(30), instance, lease);
                granted.incrementAndGet();
                engine.callers().complete(permit.callId(), 200);
            } catch (GateException e) {
                if (stopping.get()) {
                    return;
                }
                errors.incrementAndGet();
                System.err.println("flooder: " + e);
                if (e instanceof GatePausedException) {
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException ie) {
                        return;
                    }
                }
            } catch (RuntimeException e) {
                if (stopping.get()) {
                    return;
                }
                errors.incrementAndGet();
                e.printStackTrace();
            }
        }
    }
}
