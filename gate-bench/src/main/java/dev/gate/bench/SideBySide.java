package dev.gate.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.client.CallClass;
import dev.gate.client.CallOptions;
import dev.gate.client.Permit;
import dev.gate.dev.GateDatabase;
import dev.gate.engine.Engine;
import dev.gate.engine.EngineSettings;
import dev.gate.engine.PoolNeeds;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.postgresql.Bucket4jPostgreSQL;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 * database, in process: throughput and latency at 1, 4 and 16 callers on a limit never reached (scenario 1). The
 * gate's figure is a grant (acquire); its cycle also reports the outcome, as a real caller does. Prints one table
 * with both columns, the ratio and the host's CPU use. {@code args[0]}: seconds per cell (default 5).
 */
public final class SideBySide {

    private static final int[] CALLERS = {1, 4, 16};
    private static final long NEVER_REACHED = 1_000_000;

    /** One operation a caller repeats; answers whether it was granted. */
    @FunctionalInterface
    interface Take {
        boolean take() throws Exception;
    }

    record Cell(double perSecond, Percentiles latency, int failures, double cpuBusy) {
    }

    private SideBySide() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 && !args[0].isBlank() ? Integer.parseInt(args[0]) : 5;
        GateDatabase db = GateDatabase.fresh("gate_side_by_side");
        db.sql("CREATE TABLE bucket (id bigint PRIMARY KEY, state bytea)");
        db.sql("INSERT INTO gate_limit (name, calls, window_ms) VALUES ('open', " + NEVER_REACHED + ", 1000)");

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

        Take gateGrant = () -> {
            Permit p = gate.callers().acquire("open", CallClass.INTERACTIVE, Duration.ofSeconds(5), "bench",
                    CallOptions.NONE);
            gate.callers().complete(p.callId(), 200);
            return true;
        };
        List<String> rows = new ArrayList<>();
        for (int callers : CALLERS) {
            Cell g = cell(gateGrant, callers, seconds);
            Cell u = cell(() -> forUpdate.tryConsume(1), callers, seconds);
            Cell a = cell(() -> advisory.tryConsume(1), callers, seconds);
            double best = Math.max(u.perSecond(), a.perSecond());
            rows.add(String.format("| %2d callers | %,8.0f /s, p50 %5.2f ms, p99 %6.2f ms, cpu %3.0f%% "
                            + "| %,8.0f /s, p50 %5.2f ms, p99 %6.2f ms, cpu %3.0f%% "
                            + "| %,8.0f /s, p50 %5.2f ms, p99 %6.2f ms, cpu %3.0f%% | %.2fx |",
                    callers, g.perSecond(), g.latency().at(0.5), g.latency().at(0.99), g.cpuBusy(),
                    u.perSecond(), u.latency().at(0.5), u.latency().at(0.99), u.cpuBusy(),
                    a.perSecond(), a.latency().at(0.5), a.latency().at(0.99), a.cpuBusy(), g.perSecond() / best));
            if (g.failures() + u.failures() + a.failures() > 0) {
                System.out.printf("failures at %d callers: gate %d, select-for-update %d, advisory %d%n", callers,
                        g.failures(), u.failures(), a.failures());
            }
        }
        System.out.printf("%nside by side, in process, limit never reached (%d s per cell, %s, %d cores)%n", seconds,
                LocalDate.now(), Runtime.getRuntime().availableProcessors());
        System.out.println("| callers | gate (acquire + outcome) | Bucket4j SELECT FOR UPDATE | Bucket4j advisory lock "
                + "| gate / best Bucket4j |");
        System.out.println("| --- | --- | --- | --- | --- |");
        rows.forEach(System.out::println);
        System.out.println("(latency: the grant alone, acquire for the gate, tryConsume for Bucket4j; cpu: the "
                + "whole host, PostgreSQL included)");

        gate.stop();
        scheduler.shutdownNow();
        gatePool.close();
        bucketPool.close();
        db.server().stop();
    }

    /** {@code callers} threads repeat {@code take} for a warm-up second, then for {@code seconds}. */
    private static Cell cell(Take take, int callers, int seconds) throws Exception {
        run(take, callers, 1, new ArrayList<>(), new AtomicLong());
        List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
        AtomicLong failures = new AtomicLong();
        long[] cpu0 = cpu();
        long t0 = System.nanoTime();
        long done = run(take, callers, seconds, latencies, failures);
        double elapsed = (System.nanoTime() - t0) / 1e9;
        long[] cpu1 = cpu();
        double busy = cpu1[0] == cpu0[0] ? Double.NaN
                : 100.0 * (1 - (double) (cpu1[1] - cpu0[1]) / (cpu1[0] - cpu0[0]));
        return new Cell(done / elapsed, new Percentiles(latencies), (int) failures.get(), busy);
    }

    private static long run(Take take, int callers, int seconds, List<Double> latencies, AtomicLong failures)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<Future<Long>> counts = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            counts.add(pool.submit(() -> {
                long n = 0;
                while (System.nanoTime() < until) {
                    long t = System.nanoTime();
                    boolean granted;
                    try {
                        granted = take.take();
                    } catch (Exception e) {
                        granted = false;
                    }
                    if (granted) {
                        latencies.add((System.nanoTime() - t) / 1e6);
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

    /** Host CPU jiffies from /proc/stat: {total, idle + iowait}; zeros where there is no /proc. */
    private static long[] cpu() {
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
