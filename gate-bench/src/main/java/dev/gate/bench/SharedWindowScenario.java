package dev.gate.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.Permit;
import dev.gate.dev.GateDatabase;
import dev.gate.dev.SendLog;
import dev.gate.engine.Engine;
import dev.gate.rules.ReceiptMargin;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.postgresql.Bucket4jPostgreSQL;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Scenario 2 of the side-by-side: two processes sharing one limit (60 per 10 s), the fullest window by grant and by
 * the receiver's clock, on the gate and on Bucket4j.
 */
final class SharedWindowScenario {

    private SharedWindowScenario() {
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
        long failures = SideBySide.drive(List.of(a, b), 4, seconds, copy -> {
            Permit p = copy.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(30), "bench",
                    CallOptions.NONE);
            Instant at = Instant.now(); // the same host clock as the database's
            received.add(at);
            slowestNanos.accumulateAndGet(Duration.between(p.grantedAt(), at).toNanos(), Math::max);
            copy.callers().complete(p.callId(), 200);
        });
        SideBySide.closeAll(resources);
        List<SendLog.Send> sends = db.sendLog().withSlots(limit);
        List<Instant> granted = sends.stream().map(SendLog.Send::sentAt).toList();
        // the first send has no beat to be late on: a new limit's slot is due from a day before (its burst ready)
        List<Double> lateness = sends.stream().skip(1)
                .map(x -> Duration.between(x.slotAt(), x.sentAt()).toNanos() / 1e6).toList();
        double allowed = calls * ((double) seconds / window.toSeconds());
        return new SharedWindow(calls, window, SendLog.fullestWindow(granted, window),
                SendLog.fullestWindow(SideBySide.sorted(received), window), received.size() / allowed,
                Duration.ofNanos(slowestNanos.get()), ReceiptMargin.byDefault().forWindow(window), granted.size(),
                db.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND state = 'DONE'", limit),
                new Percentiles(lateness), failures);
    }

    /**
     * Scenario 2 beside Bucket4j: two processes (two gate copies; two Bucket4j proxy managers with their own pools)
     * share 60 calls per 10 s, 4 greedy callers each.
     */
    static void run(GateDatabase db, int seconds) throws Exception {
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
            long failed = SideBySide.drive(List.of(bucketA, bucketB), 4, seconds, bucket -> {
                if (bucket.tryConsume(1)) {
                    received.add(Instant.now());
                } else {
                    Thread.sleep(5); // a token bucket caller's usual back-off
                }
            });
            poolA.close();
            poolB.close();
            lines.add(windowLine("Bucket4j SELECT FOR UPDATE, refill " + refill + (failed > 0 ? " (" + failed
                    + " calls failed)" : ""), SideBySide.sorted(received), calls, window, seconds));
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
}
