package dev.gate.demo.vendor;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The demo vendor's rule and what it saw since the rule was last set: requests, 429s, answers per path (an item
 * answered twice was fetched twice), and the worst window of requests received.
 */
public final class VendorCounters {

    private final int calls;
    private final Duration window;
    private final VendorWindow rule;
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private final Map<String, AtomicInteger> answered = new ConcurrentHashMap<>();

    public VendorCounters(int calls, Duration window) {
        this.calls = calls;
        this.window = window;
        this.rule = new VendorWindow(calls, window);
    }

    /** One request for {@code path}: the verdict, counted. */
    public VendorWindow.Verdict admit(String path, long nowNanos) {
        VendorWindow.Verdict v = received(nowNanos);
        if (v.accepted()) {
            answered.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
        }
        return v;
    }

    /** One request that will get no answer (a test's broken connection): it counts, in its window too. */
    public VendorWindow.Verdict received(long nowNanos) {
        requests.incrementAndGet();
        VendorWindow.Verdict v = rule.admit(nowNanos);
        if (!v.accepted()) {
            refused.incrementAndGet();
        }
        return v;
    }

    public int calls() {
        return calls;
    }

    public Duration window() {
        return window;
    }

    public int requests() {
        return requests.get();
    }

    public int refused() {
        return refused.get();
    }

    public int worstWindow() {
        return rule.worstWindow();
    }

    /** Paths answered more than once (a history item fetched twice). */
    public long answeredTwice(String prefix) {
        return answered.entrySet().stream().filter(e -> e.getKey().startsWith(prefix))
                .filter(e -> e.getValue().get() > 1).count();
    }

    /** How often each path was answered. */
    public Map<String, Integer> answeredByPath() {
        Map<String, Integer> copy = new java.util.TreeMap<>();
        answered.forEach((k, v) -> copy.put(k, v.get()));
        return copy;
    }

    /** Paths answered at least once. */
    public long answered(String prefix) {
        return answered.keySet().stream().filter(k -> k.startsWith(prefix)).count();
    }
}
