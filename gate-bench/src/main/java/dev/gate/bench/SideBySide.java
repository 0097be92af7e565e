package dev.gate.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.Permit;
import dev.gate.dev.GateDatabase;
import dev.gate.engine.Engine;
import dev.gate.engine.EngineSettings;
import dev.gate.engine.PoolNeeds;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.postgresql.Bucket4jPostgreSQL;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The gate beside the usual choice, Bucket4j on PostgreSQL (SELECT FOR UPDATE, and advisory locks), on the same
 * database, in process. Scenario 1: throughput and latency at 1, 4 and 16 callers on a limit never reached (the
 * gate's figure is a grant; its cycle also reports the outcome, as a real caller does), with the ratio and the host's
 * CPU use. Scenario 2: two processes sharing 60 per 10 s, the fullest window by grant and by receipt time. Scenario
 * 3: a person's call among a backfill flood. Scenario 4: the beat's lateness. Scenario 5: try-consume (the gate's
 * consuming try beside Bucket4j's tryConsume) at 1, 4 and 16 callers. {@code args[0]}: seconds per cell of scenarios 1
 * and 5 (default 5); scenarios 2 and 3 run eight times as long.
 */
public final class SideBySide {

    private static final int[] CALLERS = {1, 4, 16};
    private static final long NEVER_REACHED = 1_000_000;
    private static final int OPEN_BURST = Integer.getInteger("bench.open.burst", 1_000);

    private SideBySide() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 && !args[0].isBlank() ? Integer.parseInt(args[0]) : 5;
        // which scenarios to run, e.g. "1" or "24" (-Dbench.scenarios): all by default
        String scenarios = System.getProperty("bench.scenarios", "12345");
        // each system runs this long at 16 callers before scenario 1 is measured (JIT, pools, plans, caches)
        int warmUp = Integer.getInteger("bench.warmup.seconds", 30);
        GateDatabase db = GateDatabase.fresh("gate_side_by_side");
        db.sql("CREATE TABLE bucket (id bigint PRIMARY KEY, state bytea)");
        // a bucket of Bucket4j's holds its whole capacity as a burst; the gate's limit may send 1 ms of its rate
        // back to back (its burst allowance), and otherwise keeps its beat of 1 us
        db.sql("INSERT INTO gate_limit (name, calls, window_ms, burst) VALUES ('open', " + NEVER_REACHED + ", 1000, "
                + OPEN_BURST + ")");

        EngineSettings settings = EngineSettings.defaults();
        HikariDataSource gatePool = db.pool(PoolNeeds.connections(settings));
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(4);
        Engine gate = new Engine("side-by-side", gatePool, "gate-pool", gatePool.getMaximumPoolSize(), scheduler,
                Executors.defaultThreadFactory(), settings);
        gate.start();
        HikariDataSource bucketPool = db.pool(20);
        BucketConfiguration config = BucketConfiguration.builder()
                .addLimit(l -> l.capacity(NEVER_REACHED).refillGreedy(NEVER_REACHED, Duration.ofSeconds(1))).build();
        Bucket forUpdate = Bucket4jPostgreSQL.selectForUpdateBasedBuilder(bucketPool).build().builder()
                .build(1L, () -> config);
        Bucket advisory = Bucket4jPostgreSQL.advisoryLockBasedBuilder(bucketPool).build().builder()
                .build(2L, () -> config);

        List<String> rows = new ArrayList<>();
        if (scenarios.contains("1")) {
            List<Cells.Timed> systems = List.of(gateCycle(gate, "open"),
                    Cells.Timed.whole(() -> forUpdate.tryConsume(1)),
                    Cells.Timed.whole(() -> advisory.tryConsume(1)));
            for (Cells.Timed system : systems) {
                Cells.run(system, 16, warmUp, new ArrayList<>(), new AtomicLong());
            }
            for (int callers : CALLERS) {
                Cells.Cell[] cells = alternated(systems, callers, seconds);
                Cells.Cell g = cells[0];
                Cells.Cell u = cells[1];
                Cells.Cell a = cells[2];
                double best = Math.max(u.perSecond(), a.perSecond());
                rows.add(String.format("| %2d callers | %,8.0f /s cycle, %,8.0f /s grant alone, p50 %5.2f ms, "
                                + "p99 %6.2f ms, cpu %3.0f%% "
                                + "| %,8.0f /s, p50 %5.2f ms, p99 %6.2f ms, cpu %3.0f%% "
                                + "| %,8.0f /s, p50 %5.2f ms, p99 %6.2f ms, cpu %3.0f%% | %.2fx, %.2fx | %.2fx |",
                        callers, g.perSecond(), g.grantAlonePerSecond(callers), g.latency().at(0.5),
                        g.latency().at(0.99), g.cpuBusy(),
                        u.perSecond(), u.latency().at(0.5), u.latency().at(0.99), u.cpuBusy(),
                        a.perSecond(), a.latency().at(0.5), a.latency().at(0.99), a.cpuBusy(), g.perSecond() / best,
                        g.grantAlonePerSecond(callers) / best,
                        g.latency().at(0.5) / Math.min(u.latency().at(0.5), a.latency().at(0.5))));
                if (g.failures() + u.failures() + a.failures() > 0) {
                    System.out.printf("failures at %d callers: gate %d, select-for-update %d, advisory %d%n",
                            callers, g.failures(), u.failures(), a.failures());
                }
            }
        }
        System.out.printf("%nside by side, in process, limit never reached (%d s warm-up each, then 2 x %d s per "
                + "cell, alternated; %s, %d cores)%n", warmUp, seconds, LocalDate.now(),
                Runtime.getRuntime().availableProcessors());
        System.out.println("| callers | gate | Bucket4j SELECT FOR UPDATE | Bucket4j advisory lock "
                + "| gate / best Bucket4j (cycle, grant alone) | gate p50 / best Bucket4j p50 |");
        System.out.println("| --- | --- | --- | --- | --- | --- |");
        rows.forEach(System.out::println);
        System.out.println("(cycle: acquire + outcome, one after the other; grant alone: callers / mean acquire time; "
                + "latency: the grant alone, acquire for the gate, tryConsume for Bucket4j; cpu: the whole host, "
                + "PostgreSQL included)");
        if (scenarios.contains("1")) {
            indexUse(db);
        }
        if (scenarios.contains("5")) {
            consuming(db, gate, forUpdate, advisory, warmUp, seconds);
        }

        gate.stop();
        scheduler.shutdownNow();
        gatePool.close();

        if (scenarios.contains("2")) {
            SharedWindowScenario.run(db, 8 * seconds);
        }
        if (scenarios.contains("3")) {
            InteractiveScenario.run(db, bucketPool, 8 * seconds);
        }
        if (scenarios.contains("4")) {
            beat(db, 4 * seconds);
        }
        bucketPool.close();
        db.server().stop();
    }

    /**
     * Scenario 4: lateness of each send against its beat slot, two copies flooding 100 per second (a 10 ms beat).
     * Bucket4j has no beat: a token is taken whenever a retry finds one.
     */
    private static void beat(GateDatabase db, int seconds) throws Exception {
        SharedWindowScenario.SharedWindow gate = SharedWindowScenario.gateSharedWindow(db, "beat", 100,
                Duration.ofSeconds(1), seconds);
        System.out.printf("%nscenario 4: lateness against the beat, two copies flooding 100 per s for %d s%n",
                seconds);
        System.out.println("| system | lateness of each send against its slot | fullest 1 s window | sends |");
        System.out.println("| --- | --- | --- | --- |");
        System.out.printf("| gate | %s | %d (limit 100) | %d |%n", gate.lateness().summary(), gate.byGrant(),
                gate.grants());
        System.out.println("| Bucket4j | n/a (no beat) | | |");
    }

    @FunctionalInterface
    interface Step<T> {
        void run(T on) throws Exception;
    }

    /**
     * {@code perTarget} threads per target repeat {@code step} for {@code seconds}; a step that throws is counted
     * (and the first such error printed), and its thread goes on. Answers the failed steps.
     */
    static <T> long drive(List<T> targets, int perTarget, int seconds, Step<T> step) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        ExecutorService pool = Executors.newFixedThreadPool(targets.size() * perTarget);
        AtomicLong failed = new AtomicLong();
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (T target : targets) {
                for (int i = 0; i < perTarget; i++) {
                    runs.add(pool.submit(() -> {
                        while (System.nanoTime() < until) {
                            try {
                                step.run(target);
                            } catch (Exception e) {
                                if (failed.getAndIncrement() == 0) {
                                    System.err.println("a step failed (later failures are only counted): " + e);
                                }
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : runs) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        return failed.get();
    }

    static List<Instant> sorted(List<Instant> instants) {
        List<Instant> out = new ArrayList<>(instants);
        Collections.sort(out);
        return out;
    }

    static void closeAll(List<AutoCloseable> resources) throws Exception {
        for (AutoCloseable r : resources) {
            r.close();
        }
    }

    /**
     * Each system's cells at {@code callers}, measured twice, alternated, first and last in turn: neither a warm-up
     * nor the vacuum of the one before weighs on one system alone.
     */
    private static Cells.Cell[] alternated(List<Cells.Timed> systems, int callers, int seconds) throws Exception {
        Cells.Cell[] cells = new Cells.Cell[systems.size()];
        for (int round = 0; round < 2; round++) {
            for (int k = 0; k < systems.size(); k++) {
                int i = round == 0 ? k : systems.size() - 1 - k;
                Cells.Cell c = Cells.measure(systems.get(i), callers, seconds);
                cells[i] = cells[i] == null ? c : cells[i].and(c);
            }
        }
        return cells;
    }

    /**
     * Scenario 5: a request that is its own call (an inbound limit), the gate's consuming try (granted and ended in one
     * statement) beside Bucket4j's tryConsume, each warmed up at 16 callers, then 1, 4 and 16 callers alternated.
     */
    private static void consuming(GateDatabase db, Engine gate, Bucket forUpdate, Bucket advisory, int warmUp,
                                  int seconds) throws Exception {
        java.util.Optional<Floor> floor = Floor.on(db);
        List<Cells.Timed> systems = List.of(
                Cells.Timed.whole(() -> gate.callers().tryConsume("open", CallClass.INTERACTIVE, "bench",
                        CallOptions.NONE).isGranted()),
                Cells.Timed.whole(() -> forUpdate.tryConsume(1)),
                Cells.Timed.whole(() -> advisory.tryConsume(1)));
        for (Cells.Timed system : systems) {
            Cells.run(system, 16, warmUp, new ArrayList<>(), new AtomicLong());
        }
        System.out.printf("%nscenario 5: try-consume, in process, limit never reached (%d s warm-up each, then 2 x %d s "
                + "per cell, alternated; %s, %d cores)%n", warmUp, seconds, LocalDate.now(),
                Runtime.getRuntime().availableProcessors());
        System.out.println("| callers | gate tryConsume | Bucket4j SELECT FOR UPDATE | Bucket4j advisory lock "
                + "| gate / best Bucket4j | floor, the gate's shape | floor, Bucket4j's shape | gate / its floor |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- |");
        for (int callers : CALLERS) {
            Cells.Cell[] c = alternated(systems, callers, seconds);
            Floor.Figure gateFloor = floor.isPresent() ? floor.get().gate(callers, seconds) : Floor.NONE;
            Floor.Figure bucketFloor = floor.isPresent() ? floor.get().bucket(callers, seconds) : Floor.NONE;
            System.out.printf("| %2d | %s | %s | %s | %.2fx | %s | %s | %.2fx |%n", callers, consumed(c[0]),
                    consumed(c[1]), consumed(c[2]), c[0].perSecond() / Math.max(c[1].perSecond(), c[2].perSecond()),
                    gateFloor, bucketFloor, c[0].perSecond() / gateFloor.perSecond());
        }
        System.out.println("(refused: tries told 'not now', each counted apart from the rate; floor: pgbench, "
                + "autocommit, prepared, the shape's one statement on one hot row, at as many clients as callers, "
                + "right after the cells)");
    }

    private static String consumed(Cells.Cell c) {
        return String.format("%,7.0f /s, p50 %5.2f ms, p99 %6.2f ms, cpu %3.0f%%, refused %d", c.perSecond(),
                c.latency().at(0.5), c.latency().at(0.99), c.cpuBusy(), c.failures());
    }

    /** Scenario 1, the gate's side: {@code callers} threads acquire and report the outcome, over and over. */
    static Cells.Cell gateCell(Engine gate, String limit, int callers, int seconds) throws Exception {
        return Cells.measure(gateCycle(gate, limit), callers, seconds);
    }

    /** The gate's cycle: acquire, then report the outcome (in the rate, not in the grant's latency). */
    private static Cells.Timed gateCycle(Engine gate, String limit) {
        return () -> {
            long t = System.nanoTime();
            Permit p = gate.callers().acquire(limit, CallClass.INTERACTIVE, Duration.ofSeconds(5), "bench",
                    CallOptions.NONE);
            long granted = System.nanoTime() - t;
            gate.callers().complete(p.callId(), 200);
            return granted;
        };
    }

    /** The gate's indexes as scenario 1 used them, and how many of its call updates were HOT. */
    private static void indexUse(GateDatabase db) throws Exception {
        System.out.println("\nthe gate's tables after scenario 1 (pg_stat_user_indexes: scans per index; "
                + "pg_stat_user_tables: rows written)");
        try (java.sql.Connection c = db.connect(); java.sql.Statement s = c.createStatement()) {
            s.execute("SELECT pg_stat_force_next_flush()");
            try (java.sql.ResultSet rs = s.executeQuery("""
                    SELECT relname, string_agg(indexrelname || ' ' || idx_scan, ', ' ORDER BY idx_scan DESC) AS scans
                    FROM pg_stat_user_indexes WHERE relname IN ('gate_call', 'gate_send', 'gate_slot')
                    GROUP BY relname ORDER BY relname""")) {
                while (rs.next()) {
                    System.out.println("  " + rs.getString(1) + ": " + rs.getString(2));
                }
            }
            try (java.sql.ResultSet rs = s.executeQuery("""
                    SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables
                    WHERE relname IN ('gate_call', 'gate_send', 'gate_slot') ORDER BY relname""")) {
                while (rs.next()) {
                    System.out.printf("  %s: %,d inserted, %,d updated (%,d HOT)%n", rs.getString(1), rs.getLong(2),
                            rs.getLong(3), rs.getLong(4));
                }
            }
        }
    }

}
