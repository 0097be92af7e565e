package dev.gate.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One cell of a side-by-side run: callers repeating one operation for a warm-up second and then a set time, with the
 * rate, each grant's time, the failures and the host's CPU use over it.
 */
final class Cells {

    private Cells() {
    }

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

    /** {@code callers} threads repeat {@code take} for a warm-up second, then for {@code seconds}. */
    static Cell measure(Timed take, int callers, int seconds) throws Exception {
        run(take, callers, 1, new ArrayList<>(), new AtomicLong());
        List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
        AtomicLong failures = new AtomicLong();
        long[] cpu0 = cpu();
        long t0 = System.nanoTime();
        long done = run(take, callers, seconds, latencies, failures);
        double elapsed = (System.nanoTime() - t0) / 1e9;
        return new Cell(done / elapsed, List.copyOf(latencies), (int) failures.get(), busy(cpu0, cpu()));
    }

    static long run(Timed take, int callers, int seconds, List<Double> latencies, AtomicLong failures)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            return run(pool, take, callers, seconds, latencies, failures);
        } finally {
            // an Error in a caller (not counted as a failure) ends the run; the pool's threads must not outlive it, or
            // exec:java waits for them for ever and the error is never printed
            pool.shutdownNow();
        }
    }

    private static long run(ExecutorService pool, Timed take, int callers, int seconds, List<Double> latencies,
                            AtomicLong failures) throws Exception {
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
