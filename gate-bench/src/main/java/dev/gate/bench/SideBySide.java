package dev.gate.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.Permit;
import dev.gate.dev.GateDatabase;
import dev.gate.dev.SendLog;
import dev.gate.engine.Engine;
import dev.gate.engine.EngineSettings;
import dev.gate.engine.PoolNeeds;
import dev.gate.rules.ReceiptMargin;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.postgresql.Bucket4jPostgreSQL;

import java.nio.file.Files;
import java.nio.file.Path;
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
 * 3: a person's call among a backfill flood. {@code args[0]}: seconds per cell of scenario 1 (default 5); scenarios 2
 * and 3 run eight times as long.
 */
public final class SideBySide {

    private static final int[] CALLERS = {1, 4, 16};
    private static final long NEVER_REACHED = 1_000_000;
    private static final int OPEN_BURST = Integer.getInteger("bench.open.burst", 1_000);

    /** One operation a caller repeats; answers whether it was granted. */
    @FunctionalInterface
    interface Take {
        boolean take() throws Exception;
    }

    /** One operation a caller repeats; answers how long its grant took (ns), or -1 when it was refused. */
    @FunctionalInterface
    interface Timed {
        long grantNanos() throws Exception;

        /** The whole of {@code take} is the grant (Bucket4j's tryConsume). */
        static Timed whole(Take take) {
            return () -> {
                long t = System.nanoTime();
                return take.take() ? System.nanoTime() - t : -1;
            };
        }
    }

    /** @param latencies each grant's time (ms) */
    record Cell(double perSecond, List<Double> latencies, int failures, double cpuBusy) {

        Percentiles latency() {
            return new Percentiles(latencies);
        }

        /** Grants a second if the callers did nothing but acquire: callers over the mean grant time. */
        double grantAlonePerSecond(int callers) {
            return callers * 1000.0 / latencies.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        }

        /** Two runs of one cell as one: their rates and CPU averaged, their latencies pooled. */
        Cell and(Cell other) {
            List<Double> all = new ArrayList<>(latencies);
            all.addAll(other.latencies);
            return new Cell((perSecond + other.perSecond) / 2, all, failures + other.failures,
                    (cpuBusy + other.cpuBusy) / 2);
        }
    }

    private SideBySide() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 && !args[0].isBlank() ? Integer.parseInt(args[0]) : 5;
        // which scenarios to run, e.g. "1" or "24" (-Dbench.scenarios): all by default
        String scenarios = System.getProperty("bench.scenarios", "1234");
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
            List<Timed> systems = List.of(gateCycle(gate, "open"), Timed.whole(() -> forUpdate.tryConsume(1)),
                    Timed.whole(() -> advisory.tryConsume(1)));
            for (Timed system : systems) {
                run(system, 16, warmUp, new ArrayList<>(), new AtomicLong());
            }
            for (int callers : CALLERS) {
                // the cells alternate, each system measured twice, first and last in turn: neither a warm-up nor
                // the vacuum of the one before weighs on one system alone
                Cell[] cells = new Cell[systems.size()];
                for (int round = 0; round < 2; round++) {
                    for (int k = 0; k < systems.size(); k++) {
                        int i = round == 0 ? k : systems.size() - 1 - k;
                        Cell c = cell(systems.get(i), callers, seconds);
                        cells[i] = cells[i] == null ? c : cells[i].and(c);
                    }
                }
                Cell g = cells[0];
                Cell u = cells[1];
                Cell a = cells[2];
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

        gate.stop();
        scheduler.shutdownNow();
        gatePool.close();

        if (scenarios.contains("2")) {
            sharedWindow(db, 8 * seconds);
        }
        if (scenarios.contains("3")) {
            interactiveAmongBackfill(db, bucketPool, 8 * seconds);
        }
        if (scenarios.contains("4")) {
            beat(db, 4 * seconds);
        }
        bucketPool.close();
        db.server().stop();
    }

    /** The gate's figures of scenario 2: the fullest window by grant and by receipt, and the slowest delivery. */
    record SharedWindow(int calls, Duration window, int byGrant, int byReceipt, double utilization,
                        Duration slowestReceipt, Duration margin, long grants, long done, Percentiles lateness,
                        long failures) {

        /** The margin holds the cap by receipt only for grants that reach their callers within it. */
        boolean receiptWithinMargin() {
            return slowestReceipt.compareTo(margin) < 0;
        }
    }

    /**
     * Scenario 2, the gate's side: two copies (two processes' worth: own pools, own loops) share {@code calls} per
     * {@code window}, 4 greedy callers each, for {@code seconds}.
     */
    static SharedWindow gateSharedWindow(GateDatabase db, String limit, int calls, Duration window, int seconds)
            throws Exception {
        List<AutoCloseable> resources = new ArrayList<>();
        Engine a = BenchCopies.start(limit + "-a", db, resources);
        Engine b = BenchCopies.start(limit + "-b", db, resources);
        resources.add(0, a::stop);
        resources.add(1, b::stop);
        // the limit (and its first beat slot) comes once both copies run: their start-up is no send's lateness
        db.sql("INSERT INTO gate_limit (name, calls, window_ms) VALUES (?, ?, ?)", limit, calls, window.toMillis());
        List<Instant> received = Collections.synchronizedList(new ArrayList<>());
        AtomicLong slowestNanos = new AtomicLong();
        long failures = drive(List.of(a, b), 4, seconds, copy -> {
            Permit p = copy.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(30), "bench",
                    CallOptions.NONE);
            Instant at = Instant.now(); // the same host clock as the database's
            received.add(at);
            slowestNanos.accumulateAndGet(Duration.between(p.grantedAt(), at).toNanos(), Math::max);
            copy.callers().complete(p.callId(), 200);
        });
        closeAll(resources);
        List<SendLog.Send> sends = db.sendLog().withSlots(limit);
        List<Instant> granted = sends.stream().map(SendLog.Send::sentAt).toList();
        List<Double> lateness = sends.stream()
                .map(x -> Duration.between(x.slotAt(), x.sentAt()).toNanos() / 1e6).toList();
        double allowed = calls * ((double) seconds / window.toSeconds());
        return new SharedWindow(calls, window, SendLog.fullestWindow(granted, window),
                SendLog.fullestWindow(sorted(received), window), received.size() / allowed,
                Duration.ofNanos(slowestNanos.get()), ReceiptMargin.byDefault().forWindow(window), granted.size(),
                db.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND state = 'DONE'", limit),
                new Percentiles(lateness), failures);
    }

    /**
     * Scenario 4: lateness of each send against its beat slot, two copies flooding 100 per second (a 10 ms beat).
     * Bucket4j has no beat: a token is taken whenever a retry finds one.
     */
    private static void beat(GateDatabase db, int seconds) throws Exception {
        SharedWindow gate = gateSharedWindow(db, "beat", 100, Duration.ofSeconds(1), seconds);
        System.out.printf("%nscenario 4: lateness against the beat, two copies flooding 100 per s for %d s%n",
                seconds);
        System.out.println("| system | lateness of each send against its slot | fullest 1 s window | sends |");
        System.out.println("| --- | --- | --- | --- |");
        System.out.printf("| gate | %s | %d (limit 100) | %d |%n", gate.lateness().summary(), gate.byGrant(),
                gate.grants());
        System.out.println("| Bucket4j | n/a (no beat) | | |");
    }

    /**
     * Scenario 2 beside Bucket4j: two processes (two gate copies; two Bucket4j proxy managers with their own pools)
     * share 60 calls per 10 s, 4 greedy callers each.
     */
    private static void sharedWindow(GateDatabase db, int seconds) throws Exception {
        int calls = 60;
        Duration window = Duration.ofSeconds(10);
        SharedWindow gate = gateSharedWindow(db, "shared", calls, window, seconds);
        List<String> lines = new ArrayList<>();
        lines.add(String.format("| gate | %d (limit %d) | %d (limit %d; slowest receipt %d ms, margin %d ms) | %.3f |",
                gate.byGrant(), calls, gate.byReceipt(), calls, gate.slowestReceipt().toMillis(),
                gate.margin().toMillis(), gate.utilization()));
        for (String refill : List.of("greedy", "intervally")) {
            BucketConfiguration config = BucketConfiguration.builder().addLimit(l -> refill.equals("greedy")
                    ? l.capacity(calls).refillGreedy(calls, window)
                    : l.capacity(calls).refillIntervally(calls, window)).build();
            long id = refill.equals("greedy") ? 10L : 11L;
            HikariDataSource poolA = db.pool(8);
            HikariDataSource poolB = db.pool(8);
            Bucket bucketA = Bucket4jPostgreSQL.selectForUpdateBasedBuilder(poolA).build().builder()
                    .build(id, () -> config);
            Bucket bucketB = Bucket4jPostgreSQL.selectForUpdateBasedBuilder(poolB).build().builder()
                    .build(id, () -> config);
            List<Instant> received = Collections.synchronizedList(new ArrayList<>());
            long failed = drive(List.of(bucketA, bucketB), 4, seconds, bucket -> {
                if (bucket.tryConsume(1)) {
                    received.add(Instant.now());
                } else {
                    Thread.sleep(5); // a token bucket caller's usual back-off
                }
            });
            poolA.close();
            poolB.close();
            lines.add(windowLine("Bucket4j SELECT FOR UPDATE, refill " + refill + (failed > 0 ? " (" + failed
                    + " calls failed)" : ""), sorted(received), calls, window, seconds));
        }
        System.out.printf("%nscenario 2: two processes share %d per %d s for %d s (4 greedy callers each)%n", calls,
                window.toSeconds(), seconds);
        System.out.println("| system | fullest window by grant time | fullest window by receipt | utilization |");
        System.out.println("| --- | --- | --- | --- |");
        lines.forEach(System.out::println);
    }

    private static String windowLine(String system, List<Instant> received, int calls, Duration window,
                                     int seconds) {
        double allowed = calls * ((double) seconds / window.toSeconds());
        return String.format("| %s | n/a (the grant is the receipt) | %d (limit %d) | %.3f |", system,
                SendLog.fullestWindow(received, window), calls, received.size() / allowed);
    }

    /**
     * Scenario 3, the gate's side: the person's waits, and the most BACKFILL grants made between one of the person's
     * calls joining and its grant (the order allows one: a pass already under way when it joined).
     */
    record Interactive(List<Double> waits, long mostBackfillGrantsWhileWaiting) {
    }

    static Interactive gateInteractive(GateDatabase db, String limit, int seconds) throws Exception {
        db.sql("INSERT INTO gate_limit (name, calls, window_ms) VALUES (?, 10, 1000)", limit);
        List<AutoCloseable> resources = new ArrayList<>();
        Engine gate = BenchCopies.start(limit, db, resources);
        resources.add(0, gate::stop);
        List<Double> waits = interactive(seconds, () -> gate.callers().acquire(limit, CallClass.BACKFILL,
                Duration.ofSeconds(300), "backfill", CallOptions.NONE), p -> gate.callers().complete(
                ((Permit) p).callId(), 200), () -> {
            Permit p = gate.callers().acquire(limit, CallClass.INTERACTIVE, Duration.ofSeconds(300), "person",
                    CallOptions.NONE);
            gate.callers().complete(p.callId(), 200);
        });
        closeAll(resources);
        long jumped = db.count("""
                SELECT coalesce(max((SELECT count(*) FROM gate_call b
                                     WHERE b.limit_name = i.limit_name AND b.call_class = ?
                                       AND b.granted_at > i.enqueued_at AND b.granted_at < i.granted_at)), 0)
                FROM gate_call i WHERE i.limit_name = ? AND i.call_class = ? AND i.granted_at IS NOT NULL""",
                CallClass.BACKFILL.rank(), limit, CallClass.INTERACTIVE.rank());
        return new Interactive(waits, jumped);
    }

    /**
     * Scenario 3: one INTERACTIVE call every 2 s among 4 BACKFILL flooders on 10 per second: how long the person
     * waits. Bucket4j has no classes: its interactive caller retries like every other.
     */
    private static void interactiveAmongBackfill(GateDatabase db, HikariDataSource bucketPool, int seconds)
            throws Exception {
        Interactive gate = gateInteractive(db, "flooded", seconds);
        List<Double> gateWaits = gate.waits();
        BucketConfiguration config = BucketConfiguration.builder()
                .addLimit(l -> l.capacity(10).refillGreedy(10, Duration.ofSeconds(1))).build();
        Bucket bucket = Bucket4jPostgreSQL.selectForUpdateBasedBuilder(bucketPool).build().builder()
                .build(20L, () -> config);
        Take retrying = () -> {
            while (!bucket.tryConsume(1)) {
                Thread.sleep(1);
            }
            return true;
        };
        List<Double> bucketWaits = interactive(seconds, retrying::take, p -> { }, retrying::take);
        System.out.printf("%nscenario 3: one INTERACTIVE call every 2 s among 4 BACKFILL flooders, 10 per s, %d s%n",
                seconds);
        System.out.println("| system | interactive wait |");
        System.out.println("| --- | --- |");
        System.out.println("| gate | " + new Percentiles(gateWaits).summary() + " |");
        System.out.println("| Bucket4j SELECT FOR UPDATE | " + new Percentiles(bucketWaits).summary() + " |");
    }

    @FunctionalInterface
    interface Step<T> {
        void run(T on) throws Exception;
    }

    @FunctionalInterface
    interface Call {
        Object call() throws Exception;
    }

    @FunctionalInterface
    interface Person {
        void call() throws Exception;
    }

    /** 4 flooders repeat {@code flood} (then {@code done}); a person calls every 2 s; answers the person's waits. */
    private static List<Double> interactive(int seconds, Call flood, Step<Object> done, Person person)
            throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        ExecutorService flooders = Executors.newFixedThreadPool(4);
        for (int i = 0; i < 4; i++) {
            flooders.submit(() -> {
                while (System.nanoTime() < until) {
                    try {
                        done.run(flood.call());
                    } catch (Exception e) {
                        return null;
                    }
                }
                return null;
            });
        }
        Thread.sleep(2_000); // the flood is on
        List<Double> waits = new ArrayList<>();
        while (System.nanoTime() + TimeUnit.SECONDS.toNanos(2) < until) {
            long t = System.nanoTime();
            person.call();
            waits.add((System.nanoTime() - t) / 1e6);
            Thread.sleep(Math.max(0, 2_000 - (System.nanoTime() - t) / 1_000_000));
        }
        flooders.shutdownNow();
        flooders.awaitTermination(30, TimeUnit.SECONDS);
        return waits;
    }

    /**
     * {@code perTarget} threads per target repeat {@code step} for {@code seconds}; a step that throws is counted
     * (and the first such error printed), and its thread goes on. Answers the failed steps.
     */
    private static <T> long drive(List<T> targets, int perTarget, int seconds, Step<T> step) throws Exception {
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

    private static List<Instant> sorted(List<Instant> instants) {
        List<Instant> out = new ArrayList<>(instants);
        Collections.sort(out);
        return out;
    }

    private static void closeAll(List<AutoCloseable> resources) throws Exception {
        for (AutoCloseable r : resources) {
            r.close();
        }
    }

    /** Scenario 1, the gate's side: {@code callers} threads acquire and report the outcome, over and over. */
    static Cell gateCell(Engine gate, String limit, int callers, int seconds) throws Exception {
        return cell(gateCycle(gate, limit), callers, seconds);
    }

    /** The gate's cycle: acquire, then report the outcome (in the rate, not in the grant's latency). */
    private static Timed gateCycle(Engine gate, String limit) {
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

    /** {@code callers} threads repeat {@code take} for a warm-up second, then for {@code seconds}. */
    private static Cell cell(Timed take, int callers, int seconds) throws Exception {
        run(take, callers, 1, new ArrayList<>(), new AtomicLong());
        List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
        AtomicLong failures = new AtomicLong();
        long[] cpu0 = cpu();
        long t0 = System.nanoTime();
        long done = run(take, callers, seconds, latencies, failures);
        double elapsed = (System.nanoTime() - t0) / 1e9;
        return new Cell(done / elapsed, List.copyOf(latencies), (int) failures.get(), busy(cpu0, cpu()));
    }

    private static long run(Timed take, int callers, int seconds, List<Double> latencies, AtomicLong failures)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<Future<Long>> counts = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            counts.add(pool.submit(() -> {
                long n = 0;
                while (System.nanoTime() < until) {
                    long granted;
                    try {
                        granted = take.grantNanos();
                    } catch (Exception e) {
                        granted = -1;
                    }
                    if (granted >= 0) {
                        latencies.add(granted / 1e6);
                        n++;
                    } else {
                        failures.incrementAndGet();
                    }
                }
                return n;
            }));
        }
        long total = 0;
        for (Future<Long> f : counts) {
            total += f.get();
        }
        pool.shutdown();
        return total;
    }

    /** The host's CPU busy (%) between two {@link #cpu()} readings; NaN where there is no /proc. */
    static double busy(long[] before, long[] after) {
        return after[0] == before[0] ? Double.NaN
                : 100.0 * (1 - (double) (after[1] - before[1]) / (after[0] - before[0]));
    }

    /** Host CPU jiffies from /proc/stat: {total, idle + iowait}; zeros where there is no /proc. */
    static long[] cpu() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < f.length; i++) {
                total += Long.parseLong(f[i]);
            }
            return new long[] {total, Long.parseLong(f[4]) + Long.parseLong(f[5])};
        } catch (Exception e) {
            return new long[] {0, 0};
        }
    }
}
