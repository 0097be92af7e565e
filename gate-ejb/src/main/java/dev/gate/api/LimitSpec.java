package dev.gate.api;

import java.io.Serializable;
import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.List;
import java.util.function.Consumer;

/**
 * A limit as an operator declares it: its main rule ({@code calls} per {@code window}) and its options. Built from
 * {@link #of(int, Duration)} and {@code with...}; defaults: no minimum spacing, no further rules, a Retry-After
 * floor of 2 s, the cool-down ladder 2 s, 5 s, 15 s, 30 s, 60 s, stepped down after 10 successes, the default
 * receipt margin (half a percent of each window, at most 100 ms).
 */
public final class LimitSpec implements Serializable {

    private static final long serialVersionUID = 1L;

    /**
     * One more rule of the same vendor: {@code calls} per {@code window}, sliding, or aligned on the vendor's fixed
     * blocks (a zone and a reset time). A plain class: it crosses by value.
     */
    public static final class Rule implements Serializable {
        private static final long serialVersionUID = 1L;
        private final int calls;
        private final Duration window;
        private final ZoneId alignedZone;
        private final LocalTime alignedAt;

        public Rule(int calls, Duration window) {
            this(calls, window, null, null);
        }

        /** Aligned: see {@link LimitSpec#withAligned}; both null: a sliding window. */
        public Rule(int calls, Duration window, ZoneId alignedZone, LocalTime alignedAt) {
            this.calls = calls;
            this.window = window;
            this.alignedZone = alignedZone;
            this.alignedAt = alignedAt;
        }

        public ZoneId alignedZone() {
            return alignedZone;
        }

        public LocalTime alignedAt() {
            return alignedAt;
        }

        public int calls() {
            return calls;
        }

        public Duration window() {
            return window;
        }
    }

    // Not final only so that each with-method can change one field of a copy (with()); a spec never changes once
    // a caller holds it.
    private int calls;
    private Duration window;
    private ZoneId alignedZone;
    private LocalTime alignedAt;
    private Duration minInterval = Duration.ZERO;
    private List<Rule> moreRules = List.of();
    private Duration retryFloor = Duration.ofSeconds(2);
    private List<Duration> coolDownLadder = List.of(Duration.ofSeconds(2), Duration.ofSeconds(5),
            Duration.ofSeconds(15), Duration.ofSeconds(30), Duration.ofSeconds(60));
    private int stepDownAfter = 10;
    private Duration maxCoolDown = Duration.ofHours(1);
    private Duration receiptMargin;
    private Duration starvingAfter;
    private Duration agingAfter;
    private CallClass agingUpTo;
    private boolean fairPrograms;
    private int burst = 1;
    private boolean adaptive;
    private boolean keyed;
    private String parent;
    private Integer maxWaiting;
    private Integer maxWaitingPerProgram;
    private Integer maxKeys;

    private LimitSpec(int calls, Duration window) {
        this.calls = calls;
        this.window = window;
    }

    /** A copy with one change. */
    private LimitSpec with(Consumer<LimitSpec> change) {
        LimitSpec copy = new LimitSpec(calls, window);
        copy.alignedZone = alignedZone;
        copy.alignedAt = alignedAt;
        copy.minInterval = minInterval;
        copy.moreRules = moreRules;
        copy.retryFloor = retryFloor;
        copy.coolDownLadder = coolDownLadder;
        copy.stepDownAfter = stepDownAfter;
        copy.maxCoolDown = maxCoolDown;
        copy.receiptMargin = receiptMargin;
        copy.starvingAfter = starvingAfter;
        copy.agingAfter = agingAfter;
        copy.agingUpTo = agingUpTo;
        copy.fairPrograms = fairPrograms;
        copy.burst = burst;
        copy.adaptive = adaptive;
        copy.keyed = keyed;
        copy.parent = parent;
        copy.maxWaiting = maxWaiting;
        copy.maxWaitingPerProgram = maxWaitingPerProgram;
        copy.maxKeys = maxKeys;
        change.accept(copy);
        return copy;
    }

    public static LimitSpec of(int calls, Duration window) {
        return new LimitSpec(calls, window);
    }

    /**
     * The main rule on the vendor's fixed windows ("10,000 a day, reset at 00:00 US/Pacific", "900 per 15-minute
     * block"): counted per block of its window (a day, or a whole part of one: 1 s to 24 h, dividing 24 h) from
     * {@code at} in {@code zone}, on the database's clock; a daylight-saving day's block is the calendar day (23 or 25
     * hours). The beat inside a block is the block's rate (window / calls).
     */
    public LimitSpec withAligned(ZoneId zone, LocalTime at) {
        return with(s -> {
            s.alignedZone = zone;
            s.alignedAt = at;
        });
    }

    public ZoneId alignedZone() {
        return alignedZone;
    }

    public LocalTime alignedAt() {
        return alignedAt;
    }

    public LimitSpec withMinInterval(Duration spacing) {
        return with(s -> s.minInterval = spacing);
    }

    public LimitSpec withMoreRules(List<Rule> rules) {
        return with(s -> s.moreRules = List.copyOf(rules));
    }

    public LimitSpec withCoolDown(Duration floor, List<Duration> ladder, int successesToStepDown) {
        return with(s -> {
            s.retryFloor = floor;
            s.coolDownLadder = List.copyOf(ladder);
            s.stepDownAfter = successesToStepDown;
        });
    }

    /**
     * The longest Retry-After a program's reported outcome may pause the whole limit for (default 1 h): a longer ask
     * is taken as this. Only an operator sets more (or pauses the limit).
     */
    public LimitSpec withMaxCoolDown(Duration longest) {
        return with(s -> s.maxCoolDown = longest);
    }

    /**
     * The time a grant may take to reach its caller; the window cap keeps it free (each rule's window counts as
     * window + margin), so that counted by receipt no window holds more than the limit. Zero: no margin. Default:
     * half a percent of each rule's window, at most 100 ms.
     */
    public LimitSpec withReceiptMargin(Duration margin) {
        return with(s -> s.receiptMargin = margin);
    }

    /**
     * How long a class's oldest call may wait before the status page marks the class as starving; null: the
     * server's default (gate.starving-after, 10 minutes).
     */
    public LimitSpec withStarvingAfter(Duration after) {
        return with(s -> s.starvingAfter = after);
    }

    /**
     * The starvation guard: a call that has waited longer than {@code after} is ranked as class {@code upTo} when
     * that is higher than its own (keeping its arrival time), so under a flood of {@code upTo} calls it goes at the
     * first slot after {@code after}. Off by default: strict order, class first.
     */
    public LimitSpec withAging(Duration after, CallClass upTo) {
        return with(s -> {
            s.agingAfter = after;
            s.agingUpTo = upTo;
        });
    }

    /**
     * Programs take turns inside a class (off by default): the program served longest ago in the class goes first,
     * so one flooding program cannot push another's calls back; first come first served inside a program. Not with
     * the starvation guard.
     */
    public LimitSpec withFairPrograms(boolean fair) {
        return with(s -> s.fairPrograms = fair);
    }

    /**
     * Up to {@code sends} may go back to back after idle time (GCRA's tolerance; the allowance refills by one per gap
     * of idle time), then the beat resumes; never over any rule's window cap. Default 1: no burst. At most the main
     * rule's calls.
     */
    public LimitSpec withBurst(int sends) {
        return with(s -> s.burst = sends);
    }

    /**
     * The rate adapts to the vendor (off by default), for a vendor whose real limit is unknown or changes: each
     * rate-limit signal cuts the calls per window to 90% (at most once a window, never below a tenth), each ten
     * windows without one raise them by 2% of the declared calls, up to the declared calls.
     */
    public LimitSpec withAdaptiveRate(boolean on) {
        return with(s -> s.adaptive = on);
    }

    /**
     * A template (off by default): each call names a key ({@link CallOptions#withLimitKey}), and each key gets its
     * own line and beat under these rules, made on its first call and removed once idle. The limit's name is then at
     * most 40 characters.
     */
    public LimitSpec withKeyed(boolean on) {
        return with(s -> s.keyed = on);
    }

    /**
     * A keyed limit under a parent limit (a store's 10 per minute inside the vendor's 600 per minute): each key's
     * grant takes a slot of the parent's beat and window too, so a call goes only when it fits both. The parent is a
     * plain limit (neither keyed nor a key, with no parent of its own). Null: none.
     */
    public LimitSpec withParent(String parentLimit) {
        return with(s -> s.parent = parentLimit);
    }

    /**
     * How long the line may grow: at most {@code maxWaiting} calls waiting (default 10,000; in each key's line, for a
     * keyed limit), at most {@code perProgram} of them one program's (null: up to {@code maxWaiting}). A join past
     * either is refused at once ("line full"), never queued.
     */
    public LimitSpec withMaxWaiting(int maxWaiting, Integer perProgram) {
        return with(s -> {
            s.maxWaiting = maxWaiting;
            s.maxWaitingPerProgram = perProgram;
        });
    }

    /** A keyed limit's most open keys at once (default 100,000): a call that would open one more is refused. */
    public LimitSpec withMaxKeys(int keys) {
        return with(s -> s.maxKeys = keys);
    }

    /** The most calls waiting in the line; null: the default (10,000). */
    public Integer maxWaiting() {
        return maxWaiting;
    }

    /** The most waiting calls of one program; null: up to {@link #maxWaiting()}. */
    public Integer maxWaitingPerProgram() {
        return maxWaitingPerProgram;
    }

    /** A keyed limit's most open keys; null: the default (100,000). */
    public Integer maxKeys() {
        return maxKeys;
    }

    /** The parent limit of a keyed limit; null: none. */
    public String parent() {
        return parent;
    }

    /** Whether each call names a key with a line of its own. */
    public boolean keyed() {
        return keyed;
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

    public Duration maxCoolDown() {
        return maxCoolDown;
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
