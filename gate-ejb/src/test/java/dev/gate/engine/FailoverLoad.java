package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.GateException;
import dev.gate.api.GatePausedException;
import dev.gate.api.Permit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Callers of several classes on two gate copies, each asking again as soon as its last call is done, so the limit is
 * always saturated; what every caller heard, with its own clock: each grant it was told of (and when it heard it),
 * each "calls are paused". A grant's outcome is reported until the gate takes it, as a caller that must not leave
 * a call behind would.
 */
final class FailoverLoad implements AutoCloseable {

    /** A grant a caller was told of, when it heard it. */
    record Told(long callId, CallClass callClass, String copy, Instant heardAt) {
    }

    private final List<Told> told = new CopyOnWriteArrayList<>();
    private final List<Instant> paused = new CopyOnWriteArrayList<>();
    private final java.util.Map<String, java.util.concurrent.atomic.AtomicInteger> heard =
            new java.util.concurrent.ConcurrentSkipListMap<>();
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopping;

    FailoverLoad(String limit, java.util.Map<String, Engine> copies, List<CallClass> classes, int threadsPerClass) {
        for (java.util.Map.Entry<String, Engine> copy : copies.entrySet()) {
            for (CallClass c : classes) {
                for (int i = 0; i < threadsPerClass; i++) {
                    String name = copy.getKey() + "-" + c.name().toLowerCase() + "-" + i;
                    Thread t = new Thread(() -> callLoop(copy.getKey(), copy.getValue(), limit, c), name);
                    t.setDaemon(true);
                    threads.add(t);
                }
            }
        }
        threads.forEach(Thread::start);
    }

    private void callLoop(String name, Engine copy, String limit, CallClass callClass) {
        while (!stopping) {
            try {
                Permit p = copy.callers().acquire(limit, callClass, Duration.ofSeconds(20), "load",
                        CallOptions.NONE);
                told.add(new Told(p.callId(), callClass, name, Instant.now()));
                report(copy, p.callId());
            } catch (GatePausedException e) {
                paused.add(Instant.now());
                heard(e);
                rest(50);
            } catch (GateException e) {
                heard(e);
                rest(50); // busy, timed out in a long pause: ask again, as a caller would
            } catch (RuntimeException e) {
                failures.add(e);
                rest(50);
            }
        }
    }

    private void heard(GateException e) {
        // what a caller was told, without the call's own numbers
        String said = e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).replaceAll("[0-9]+", "N");
        heard.computeIfAbsent(said, k -> new java.util.concurrent.atomic.AtomicInteger()).incrementAndGet();
    }

    /** Each answer other than a grant the callers heard, with how often; cleared. */
    java.util.Map<String, Integer> drainHeard() {
        java.util.Map<String, Integer> out = new java.util.TreeMap<>();
        for (String k : heard.keySet()) {
            out.put(k, heard.remove(k).get());
        }
        return out;
    }

    // the outcome, until the gate has it: a call must not stay granted because its report met the outage
    private void report(Engine copy, long callId) {
        long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < until) {
            try {
                copy.callers().complete(callId, 200);
                return;
            } catch (GateException e) {
                rest(100);
            }
        }
        failures.add(new AssertionError("the outcome of call " + callId + " was not taken in 60 s"));
    }

    private static void rest(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    List<Told> told() {
        return List.copyOf(told);
    }

    long toldAfter(Instant t) {
        return told.stream().filter(g -> g.heardAt().isAfter(t)).count();
    }

    long pausedBetween(Instant from, Instant to) {
        return paused.stream().filter(p -> !p.isBefore(from) && !p.isAfter(to)).count();
    }

    /** The longest time between two grants heard in [from, to], and the first grant heard after that gap. */
    Gap longestGap(Instant from, Instant to) {
        List<Instant> heard = told.stream().map(Told::heardAt).filter(h -> !h.isBefore(from) && !h.isAfter(to))
                .sorted(Comparator.naturalOrder()).toList();
        Gap longest = new Gap(Duration.ZERO, from);
        Instant previous = from;
        for (Instant h : heard) {
            Duration d = Duration.between(previous, h);
            if (d.compareTo(longest.length()) > 0) {
                longest = new Gap(d, h);
            }
            previous = h;
        }
        return longest;
    }

    record Gap(Duration length, Instant endedAt) {
    }

    List<Throwable> failures() {
        return List.copyOf(failures);
    }

    @Override
    public void close() throws InterruptedException {
        stopping = true;
        for (Thread t : threads) {
            t.join(Duration.ofSeconds(90).toMillis());
        }
    }
}
