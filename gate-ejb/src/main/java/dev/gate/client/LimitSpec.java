package dev.gate.client;

import java.io.Serializable;
import java.time.Duration;
import java.util.List;

/**
 * A limit as an operator declares it: its main rule ({@code calls} per {@code window}) and its options. Built from
 * {@link #of(int, Duration)} and {@code with...}; defaults: no minimum spacing, no further rules, a Retry-After
 * floor of 2 s, the cool-down ladder 2 s, 5 s, 15 s, 30 s, 60 s, stepped down after 10 successes, the default
 * receipt margin (half a percent of each window, at most 100 ms).
 */
public final class LimitSpec implements Serializable {

    private static final long serialVersionUID = 1L;

    /** One more rule of the same vendor: {@code calls} per {@code window}. A plain class: it crosses by value. */
    public static final class Rule implements Serializable {
        private static final long serialVersionUID = 1L;
        private final int calls;
        private final Duration window;

        public Rule(int calls, Duration window) {
            this.calls = calls;
            this.window = window;
        }

        public int calls() {
            return calls;
        }

        public Duration window() {
            return window;
        }
    }

    private final int calls;
    private final Duration window;
    private final Duration minInterval;
    private final List<Rule> moreRules;
    private final Duration retryFloor;
    private final List<Duration> coolDownLadder;
    private final int stepDownAfter;
    private final Duration receiptMargin;
    private final Duration starvingAfter;
    private final Duration agingAfter;
    private final CallClass agingUpTo;
    private final boolean fairPrograms;
    private final int burst;
    private final boolean adaptive;

    private LimitSpec(int calls, Duration window, Duration minInterval, List<Rule> moreRules, Duration retryFloor,
                      List<Duration> coolDownLadder, int stepDownAfter, Duration receiptMargin,
                      Duration starvingAfter, Duration agingAfter, CallClass agingUpTo, boolean fairPrograms,
                      int burst, boolean adaptive) {
        this.calls = calls;
        this.window = window;
        this.minInterval = minInterval;
        this.moreRules = List.copyOf(moreRules);
        this.retryFloor = retryFloor;
        this.coolDownLadder = List.copyOf(coolDownLadder);
        this.stepDownAfter = stepDownAfter;
        this.receiptMargin = receiptMargin;
        this.starvingAfter = starvingAfter;
        this.agingAfter = agingAfter;
        this.agingUpTo = agingUpTo;
        this.fairPrograms = fairPrograms;
        this.burst = burst;
        this.adaptive = adaptive;
    }

    public static LimitSpec of(int calls, Duration window) {
        return new LimitSpec(calls, window, Duration.ZERO, List.of(), Duration.ofSeconds(2),
                List.of(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(15), Duration.ofSeconds(30),
                        Duration.ofSeconds(60)), 10, null, null, null, null, false, 1, false);
    }

    public LimitSpec withMinInterval(Duration spacing) {
        return new LimitSpec(calls, window, spacing, moreRules, retryFloor, coolDownLadder, stepDownAfter,
                receiptMargin, starvingAfter, agingAfter, agingUpTo, fairPrograms, burst, adaptive);
    }

    public LimitSpec withMoreRules(List<Rule> rules) {
        return new LimitSpec(calls, window, minInterval, rules, retryFloor, coolDownLadder, stepDownAfter,
                receiptMargin, starvingAfter, agingAfter, agingUpTo, fairPrograms, burst, adaptive);
    }

    public LimitSpec withCoolDown(Duration floor, List<Duration> ladder, int successesToStepDown) {
        return new LimitSpec(calls, window, minInterval, moreRules, floor, ladder, successesToStepDown,
                receiptMargin, starvingAfter, agingAfter, agingUpTo, fairPrograms, burst, adaptive);
    }

    /**
     * The time a grant may take to reach its caller; the window cap keeps it free (each rule's window counts as
     * window + margin), so that counted by receipt no window holds more than the limit. Zero: no margin. Default:
     * half a percent of each rule's window, at most 100 ms.
     */
    public LimitSpec withReceiptMargin(Duration margin) {
        return new LimitSpec(calls, window, minInterval, moreRules, retryFloor, coolDownLadder, stepDownAfter,
                margin, starvingAfter, agingAfter, agingUpTo, fairPrograms, burst, adaptive);
    }

    /**
     * How long a class's oldest call may wait before the status page marks the class as starving; null: the
     * server's default (gate.starving-after, 10 minutes).
     */
    public LimitSpec withStarvingAfter(Duration after) {
        return new LimitSpec(calls, window, minInterval, moreRules, retryFloor, coolDownLadder, stepDownAfter,
                receiptMargin, after, agingAfter, agingUpTo, fairPrograms, burst, adaptive);
    }

    /**
     * The starvation guard: a call that has waited longer than {@code after} is ranked as class {@code upTo} when
     * that is higher than its own (keeping its arrival time), so under a flood of {@code upTo} calls it goes at the
     * first slot after {@code after}. Off by default: strict order, class first.
     */
    public LimitSpec withAging(Duration after, CallClass upTo) {
        return new LimitSpec(calls, window, minInterval, moreRules, retryFloor, coolDownLadder, stepDownAfter,
                receiptMargin, starvingAfter, after, upTo, fairPrograms, burst, adaptive);
    }

    /**
     * Programs take turns inside a class (off by default): the program served longest ago in the class goes first,
     * so one flooding program cannot push another's calls back; first come first served inside a program. Not with
     * the starvation guard.
     */
    public LimitSpec withFairPrograms(boolean fair) {
        return new LimitSpec(calls, window, minInterval, moreRules, retryFloor, coolDownLadder, stepDownAfter,
                receiptMargin, starvingAfter, agingAfter, agingUpTo, fair, burst, adaptive);
    }

    /**
     * Up to {@code sends} may go back to back after idle time (GCRA's tolerance; the allowance refills by one per gap
     * of idle time), then the beat resumes; never over any rule's window cap. Default 1: no burst. At most the main
     * rule's calls.
     */
    public LimitSpec withBurst(int sends) {
        return new LimitSpec(calls, window, minInterval, moreRules, retryFloor, coolDownLadder, stepDownAfter,
                receiptMargin, starvingAfter, agingAfter, agingUpTo, fairPrograms, sends, adaptive);
    }

    /**
     * The rate adapts to the vendor (off by default), for a vendor whose real limit is unknown or changes: each
     * rate-limit signal cuts the calls per window to 90% (at most once a window, never below a tenth), each ten
     * windows without one raise them by 2% of the declared calls, up to the declared calls.
     */
    public LimitSpec withAdaptiveRate(boolean on) {
        return new LimitSpec(calls, window, minInterval, moreRules, retryFloor, coolDownLadder, stepDownAfter,
                receiptMargin, starvingAfter, agingAfter, agingUpTo, fairPrograms, burst, on);
    }

    /** Whether the rate adapts to the vendor's signals. */
    public boolean adaptive() {
        return adaptive;
    }

    /** The burst allowance; 1: none. */
    public int burst() {
        return burst;
    }

    /** Whether programs take turns inside a class. */
    public boolean fairPrograms() {
        return fairPrograms;
    }

    /** The starvation guard's wait; null: no guard. */
    public Duration agingAfter() {
        return agingAfter;
    }

    /** The class the guard ranks a call as once it has waited {@link #agingAfter()}; null: no guard. */
    public CallClass agingUpTo() {
        return agingUpTo;
    }

    public int calls() {
        return calls;
    }

    public Duration window() {
        return window;
    }

    public Duration minInterval() {
        return minInterval;
    }

    public List<Rule> moreRules() {
        return moreRules;
    }

    public Duration retryFloor() {
        return retryFloor;
    }

    public List<Duration> coolDownLadder() {
        return coolDownLadder;
    }

    public int stepDownAfter() {
        return stepDownAfter;
    }

    /** The declared starving mark; null for the server's default. */
    public Duration starvingAfter() {
        return starvingAfter;
    }

    /** The declared receipt margin; null for the default. */
    public Duration receiptMargin() {
        return receiptMargin;
    }
}
