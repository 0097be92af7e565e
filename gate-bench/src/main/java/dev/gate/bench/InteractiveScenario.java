package dev.gate.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.Permit;
import dev.gate.dev.GateDatabase;
import dev.gate.engine.Engine;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.postgresql.Bucket4jPostgreSQL;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Scenario 3 of the side-by-side: a person's call among a backfill flood, on the gate (classes: the person goes
 * first) and on Bucket4j (no classes: the person retries like every other caller).
 */
final class InteractiveScenario {

    private InteractiveScenario() {
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
        SideBySide.closeAll(resources);
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
    static void run(GateDatabase db, HikariDataSource bucketPool, int seconds)
            throws Exception {
        Interactive gate = gateInteractive(db, "flooded", seconds);
        List<Double> gateWaits = gate.waits();
        BucketConfiguration config = BucketConfiguration.builder()
                .addLimit(l -> l.capacity(10).refillGreedy(10, Duration.ofSeconds(1))).build();
        Bucket bucket = Bucket4jPostgreSQL.selectForUpdateBasedBuilder(bucketPool).build().builder()
                .build(20L, () -> config);
        Cells.Take retrying = () -> {
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
    interface Call {
        Object call() throws Exception;
    }

    @FunctionalInterface
    interface Person {
        void call() throws Exception;
    }

    /** 4 flooders repeat {@code flood} (then {@code done}); a person calls every 2 s; answers the person's waits. */
    private static List<Double> interactive(int seconds, Call flood, SideBySide.Step<Object> done, Person person)
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
}
