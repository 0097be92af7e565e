package dev.gate.bench;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.CallEndedException;
import dev.gate.api.GateException;
import dev.gate.api.Permit;
import dev.gate.dev.GateDatabase;
import dev.gate.dev.SendLog;
import dev.gate.engine.Engine;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Two gate copies (own pools, own loops) on one PostgreSQL, a limit of 600 per minute, every class flooding for the
 * given seconds (default 60). Prints grants, the fullest sliding window, the achieved rate against the limit, each
 * send's lateness against its beat slot, the wait per class, and the uncontended acquire-to-grant latency.
 *
 * <p>Database: {@code GATE_TEST_DB_URL} (and user, password) as for the tests, else an embedded PostgreSQL.
 */
public final class LineBenchmark {

    private static final String LIMIT = "bench";
    private static final int CALLS = 600;
    private static final Duration WINDOW = Duration.ofSeconds(60);
    private static final int CALLERS_PER_CLASS_PER_COPY = 12;

    private LineBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        GateDatabase db = GateDatabase.fresh("gate_bench");
        List<AutoCloseable> resources = new ArrayList<>();
        Engine a = BenchCopies.start("bench-copy-a", db, resources);
        Engine b = BenchCopies.start("bench-copy-b", db, resources);
        // the limit (and its first beat slot) comes once both copies run: their start-up is not the first send's
        // lateness
        db.sql("INSERT INTO gate_limit (name, calls, window_ms) VALUES ('" + LIMIT + "', " + CALLS + ", "
                + WINDOW.toMillis() + ")");

        Map<CallClass, List<Double>> waits = new EnumMap<>(CallClass.class);
        for (CallClass c : CallClass.values()) {
            waits.put(c, Collections.synchronizedList(new ArrayList<>()));
        }
        AtomicLong grantsA = new AtomicLong();
        AtomicLong grantsB = new AtomicLong();
        AtomicBoolean flooding = new AtomicBoolean(true);
        int callers = 2 * CallClass.values().length * CALLERS_PER_CLASS_PER_COPY;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        for (Engine copy : List.of(a, b)) {
            AtomicLong grants = copy == a ? grantsA : grantsB;
            for (CallClass cls : CallClass.values()) {
                for (int i = 0; i < CALLERS_PER_CLASS_PER_COPY; i++) {
                    pool.submit(() -> flood(copy, cls, flooding, waits.get(cls), grants));
                }
            }
        }
        System.out.printf("gate line benchmark: 2 copies, limit %d per %d s, %d s, %d callers flooding (%d per class "
                + "per copy)%n", CALLS, WINDOW.toSeconds(), seconds, callers, CALLERS_PER_CLASS_PER_COPY);
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        flooding.set(false);
        long stillWaiting = db.count("SELECT count(*) FROM gate_call WHERE state = 'WAITING'");
        a.stop();
        b.stop();
        pool.shutdown();
        pool.awaitTermination(30, TimeUnit.SECONDS);

        List<SendLog.Send> sends = db.sendLog().withSlots(LIMIT);
        int n = sends.size();
        Duration span = Duration.between(sends.get(0).sentAt(), sends.get(n - 1).sentAt());
        double achieved = (n - 1) / (span.toNanos() / 1e9);
        double limitRate = CALLS / (WINDOW.toNanos() / 1e9);
        List<Double> lateness = new ArrayList<>();
        for (SendLog.Send s : sends) {
            lateness.add(Duration.between(s.slotAt(), s.sentAt()).toNanos() / 1e6);
        }
        System.out.printf("grants: %d (callers of copy A %d, of copy B %d); %d calls still waiting at the end%n", n,
                grantsA.get(), grantsB.get(), stillWaiting);
        System.out.printf("max sends in any sliding %d s window: %d (limit %d)%n", WINDOW.toSeconds(),
                SendLog.fullestWindow(sends.stream().map(SendLog.Send::sentAt).toList(), WINDOW), CALLS);
        System.out.printf("achieved rate: %.4f/s from the first send to the last (%s) = %.2f%% of the limit "
                + "(%.4f/s)%n", achieved, span, 100 * achieved / limitRate, limitRate);
        System.out.println("lateness of each send against its beat slot: " + new Percentiles(lateness).summary());
        for (CallClass c : CallClass.values()) {
            System.out.printf("wait %-11s %s%n", c, new Percentiles(waits.get(c)).summary());
        }
        System.out.println("(strict priority: a class is granted only what every higher class leaves)");
        System.out.println("uncontended acquire-to-grant: " + uncontended(db, resources).summary());

        for (AutoCloseable r : resources) {
            r.close();
        }
        db.server().stop();
    }

    private static void flood(Engine copy, CallClass cls, AtomicBoolean flooding, List<Double> waits,
                              AtomicLong grants) {
        while (flooding.get()) {
            try {
                Permit p = copy.callers().acquire(LIMIT, cls, Duration.ofSeconds(120), "bench-" + cls, CallOptions.NONE);
                if (flooding.get()) {
                    waits.add(Duration.between(p.enqueuedAt(), p.grantedAt()).toNanos() / 1e6);
                    grants.incrementAndGet();
                }
                copy.callers().complete(p.callId(), 200);
            } catch (CallEndedException stopping) {
                return;
            } catch (GateException e) {
                System.err.println("caller " + cls + ": " + e.getMessage());
                return;
            }
        }
    }

    /** Acquires on an idle limit, one at a time: an empty line, a due slot, room in the window. */
    private static Percentiles uncontended(GateDatabase db, List<AutoCloseable> resources)
            throws Exception {
        db.sql("INSERT INTO gate_limit (name, calls, window_ms) VALUES ('idle', 1000, 1000)");
        Engine c = BenchCopies.start("bench-copy-c", db, resources);
        List<Double> latencies = new ArrayList<>();
        for (int i = 0; i < 250; i++) {
            long t0 = System.nanoTime();
            Permit p = c.callers().acquire("idle", CallClass.INTERACTIVE, Duration.ofSeconds(5), "bench", CallOptions.NONE);
            long t1 = System.nanoTime();
            c.callers().complete(p.callId(), 200);
            if (i >= 50) { // after warm-up
                latencies.add((t1 - t0) / 1e6);
            }
            Thread.sleep(3); // the next slot (1 ms gap) is due again: nothing waits
        }
        c.stop();
        return new Percentiles(latencies);
    }
}
