package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.GateTimeoutException;
import dev.gate.api.LimitSpec;
import dev.gate.api.Permit;
import dev.gate.dev.VendorServer;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The adaptive rate against a real vendor (an HTTP server counting by its own clock) that allows 70% of the declared
 * rate: 14 a second where the limit says 20. Callers flood the limit and report every answer; the gate's effective
 * rate comes down to the vendor's and stays near it, and the 429s stop coming every second. The suite's run is short
 * (20 s); with {@code -Dadaptive.seconds=180} it runs for minutes and prints the whole curve.
 */
class AdaptiveVendorTest extends OnOneCopy {

    /** Seconds to run: 20 in the suite; {@code -Dadaptive.seconds=180} for the curve over minutes. */
    private static final int SECONDS = Integer.getInteger("adaptive.seconds", 20);

    @Test
    void aVendorAllowingSeventyPercentIsFoundAndItsRefusalsStop() throws Exception {
        Run run = Run.against(copies, gate, SECONDS);
        System.out.println("adaptive, vendor at 14 of the declared 20 per second, per second: effective "
                + run.effective() + "; 429s " + run.refusedPerSecond());
        int half = SECONDS / 2;
        List<Integer> settled = run.effective().subList(half, SECONDS);
        double average = settled.stream().mapToInt(Integer::intValue).average().orElseThrow();
        System.out.printf("adaptive: the last %d s averaged %.1f calls per second (vendor: 14)%n", SECONDS - half,
                average);
        assertTrue(run.refusedPerSecond().subList(0, 5).stream().mapToInt(Integer::intValue).sum() > 0,
                "the declared rate was too much for the vendor at first");
        // found: never above the vendor's rate for long, never cut below 12 (90% of 14, rounded down)
        assertTrue(settled.stream().allMatch(e -> e >= 12 && e <= 15), "settled near 14: " + run.effective());
        if (SECONDS >= 60) {
            assertTrue(Math.abs(average - 14) <= 1.4, "within 10% of 14 over the last half: " + average);
        }
        int late = run.refusedPerSecond().subList(half, SECONDS).stream().mapToInt(Integer::intValue).sum();
        assertTrue(late <= Math.max(2, SECONDS / 20), "429s fell to near zero: " + run.refusedPerSecond());
        assertEquals(20, copies.count("SELECT calls FROM gate_limit WHERE name = 'adaptive'"),
                "the declaration stays: the rate in force is the slot's");
    }

    /** Callers flooding an adaptive limit of 20/s in front of a vendor that allows 14/s, sampled every second. */
    record Run(List<Integer> effective, List<Integer> refusedPerSecond) {

        static Run against(GateCopies copies, Engine gate, int seconds) throws Exception {
            gate.limits().put("adaptive", LimitSpec.of(20, Duration.ofSeconds(1)).withAdaptiveRate(true)
                    .withCoolDown(Duration.ofSeconds(1), List.of(Duration.ofSeconds(1)), 5));
            HttpClient http = HttpClient.newHttpClient();
            AtomicInteger refused = new AtomicInteger();
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            List<Integer> effective = new ArrayList<>();
            List<Integer> refusedPerSecond = new ArrayList<>();
            try (VendorServer vendor = new VendorServer(14, Duration.ofSeconds(1))) {
                long until = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
                List<Thread> callers = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    int caller = t;
                    Thread thread = new Thread(() -> {
                        int i = 0;
                        while (System.nanoTime() < until) {
                            try {
                                Permit p = gate.callers().acquire("adaptive", CallClass.BACKFILL,
                                        Duration.ofSeconds(2), "flood", Duration.ofSeconds(30));
                                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(vendor.url()
                                        + "/history/C" + caller + "/" + i++)).build(),
                                        HttpResponse.BodyHandlers.ofString());
                                Integer retryAfter = r.headers().firstValue("Retry-After").map(Integer::valueOf)
                                        .orElse(null);
                                if (r.statusCode() == 429) {
                                    refused.incrementAndGet();
                                }
                                gate.callers().complete(p.callId(), r.statusCode(), retryAfter);
                            } catch (GateTimeoutException paused) {
                                // the limit cooled down longer than the wait: join again
                            } catch (Exception e) {
                                failures.add(e);
                                return;
                            }
                        }
                    }, "caller-" + t);
                    thread.start();
                    callers.add(thread);
                }
                for (int s = 0; s < seconds; s++) {
                    Thread.sleep(1_000);
                    effective.add(gate.limits().status("adaptive").orElseThrow().getEffectiveCalls());
                    refusedPerSecond.add(refused.getAndSet(0));
                }
                for (Thread t : callers) {
                    t.join(10_000);
                }
            }
            assertEquals(List.of(), failures);
            return new Run(effective, refusedPerSecond);
        }
    }
}
