package dev.gate.api;

import java.io.Serializable;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A limit as an operator sees it: its rule, how much of the current window is used, when the next slot is, and who
 * waits in each class and for how long. A bean with getters, for JSF EL and JSON-B alike.
 */
public final class LimitStatus implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String name;
    private final int calls;
    private final long windowMs;
    private final long usedInWindow;
    private final Instant nextSlotAt;
    private final Instant pausedUntil;
    private final long savedSends;
    private final Map<String, Long> waiting;
    private final Map<String, Long> oldestWaitMs;
    private final int coolDownStep;
    private final Instant asOf;
    private final List<Long> sendsPerTenSeconds;
    private final long expiredLastHour;
    private final long abandonedLastHour;
    private final long minIntervalMs;
    private final List<Long> coolDownLadderMs;
    private final List<RuleUse> moreRules;
    private final Instant slowedAt;
    private final Integer slowedBy;
    private final String slowedByProgram;
    private final Long slowedByCall;
    private final long maxCoolDownMs;
    private final Long starvingAfterMs;
    private final Long agingAfterMs;
    private final String agingUpTo;
    private final long agedLastHour;
    private final boolean fairPrograms;
    private final int burst;
    private final Integer effectiveCalls;
    private final Long openKeys;
    private final String parent;
    private final LineBounds line;
    private final RuleUse ownRule;
    private final Long vendorLeft;
    private final Instant vendorResetAt;
    private final String vendorProgram;
    private final Long vendorCall;

    /**
     * What the vendor said was left of its own count (as the last outcome that carried one reported it, less the
     * units sent since), while its reset is ahead; null: no count in force.
     */
    public Long getVendorLeft() {
        return vendorLeft;
    }

    /** When the vendor's count in force resets; null: none. */
    public Instant getVendorResetAt() {
        return vendorResetAt;
    }

    /** The program whose outcome reported the vendor's count in force; null: none, or not known. */
    public String getVendorProgram() {
        return vendorProgram;
    }

    /** The call whose outcome reported the vendor's count in force; null: none, or not known. */
    public Long getVendorCall() {
        return vendorCall;
    }

    public LimitStatus(String name, int calls, long windowMs, long usedInWindow, Instant nextSlotAt,
                       Instant pausedUntil, long savedSends, Map<CallClass, Long> waiting,
                       Map<CallClass, Long> oldestWaitMs, int coolDownStep, Instant asOf, Recent recent,
                       long minIntervalMs, List<Long> coolDownLadderMs, List<RuleUse> moreRules,
                       Instant slowedAt, Integer slowedBy, String slowedByProgram, Long slowedByCall,
                       long maxCoolDownMs, Long starvingAfterMs, Long agingAfterMs,
                       CallClass agingUpTo, boolean fairPrograms, int burst, Integer effectiveCalls,
                       Long openKeys, String parent, LineBounds line, RuleUse ownRule, Long vendorLeft,
                       Instant vendorResetAt, String vendorProgram, Long vendorCall) {
        this.ownRule = ownRule;
        this.vendorLeft = vendorLeft;
        this.vendorResetAt = vendorResetAt;
        this.vendorProgram = vendorProgram;
        this.vendorCall = vendorCall;
        this.name = name;
        this.calls = calls;
        this.windowMs = windowMs;
        this.usedInWindow = usedInWindow;
        this.nextSlotAt = nextSlotAt;
        this.pausedUntil = pausedUntil;
        this.savedSends = savedSends;
        this.waiting = byClassName(waiting, 0L);
        this.oldestWaitMs = byClassName(oldestWaitMs, null);
        this.coolDownStep = coolDownStep;
        this.asOf = asOf;
        this.sendsPerTenSeconds = List.copyOf(recent.sendsPerTenSeconds());
        this.expiredLastHour = recent.expiredLastHour();
        this.abandonedLastHour = recent.abandonedLastHour();
        this.minIntervalMs = minIntervalMs;
        this.coolDownLadderMs = List.copyOf(coolDownLadderMs);
        this.moreRules = List.copyOf(moreRules);
        this.slowedAt = slowedAt;
        this.slowedBy = slowedBy;
        this.slowedByProgram = slowedByProgram;
        this.slowedByCall = slowedByCall;
        this.maxCoolDownMs = maxCoolDownMs;
        this.starvingAfterMs = starvingAfterMs;
        this.agingAfterMs = agingAfterMs;
        this.agingUpTo = agingUpTo == null ? null : agingUpTo.name();
        this.agedLastHour = recent.agedLastHour();
        this.fairPrograms = fairPrograms;
        this.burst = burst;
        this.effectiveCalls = effectiveCalls;
        this.openKeys = openKeys;
        this.parent = parent;
        this.line = line;
    }

    /**
     * How long the line may grow, and how often a join found it full: {@code maxWaiting} calls waiting (in each key's
     * line, for a keyed limit), {@code maxWaitingPerProgram} of one program's (null: up to maxWaiting),
     * {@code maxKeys} open keys (a keyed limit's); joins refused for it so far and the last one (null: never).
     */
    public static final class LineBounds implements Serializable {
        private static final long serialVersionUID = 1L;
        private final int maxWaiting;
        private final Integer maxWaitingPerProgram;
        private final int maxKeys;
        private final long refused;
        private final Instant lastRefusedAt;

        public LineBounds(int maxWaiting, Integer maxWaitingPerProgram, int maxKeys, long refused,
                          Instant lastRefusedAt) {
            this.maxWaiting = maxWaiting;
            this.maxWaitingPerProgram = maxWaitingPerProgram;
            this.maxKeys = maxKeys;
            this.refused = refused;
            this.lastRefusedAt = lastRefusedAt;
        }

        public int getMaxWaiting() {
            return maxWaiting;
        }

        public Integer getMaxWaitingPerProgram() {
            return maxWaitingPerProgram;
        }

        public int getMaxKeys() {
            return maxKeys;
        }

        public long getRefused() {
            return refused;
        }

        public Instant getLastRefusedAt() {
            return lastRefusedAt;
        }
    }

    /** The line's caps and how often it was full. */
    public LineBounds getLine() {
        return line;
    }

    /**
     * A keyed limit's open keys (each a line of its own under this limit's rules); null: the limit is not keyed. A
     * keyed limit's waiting calls are its keys' together.
     */
    public Long getOpenKeys() {
        return openKeys;
    }

    /** A keyed limit's parent limit, whose beat and window each key's grant fits too; null: none. */
    public String getParent() {
        return parent;
    }

    /** Whether each call of the limit names a key. */
    public boolean isKeyed() {
        return openKeys != null;
    }

    /** An adaptive limit's calls per window in force now; null: the limit does not adapt (its calls hold). */
    public Integer getEffectiveCalls() {
        return effectiveCalls;
    }

    /** Sends that may go back to back after idle time; 1: no burst. */
    public int getBurst() {
        return burst;
    }

    /** Whether programs take turns inside a class on this limit. */
    public boolean isFairPrograms() {
        return fairPrograms;
    }

    /** The starvation guard's wait (ms); null: no guard, strict order. */
    public Long getAgingAfterMs() {
        return agingAfterMs;
    }

    /** The class the guard ranks a call as once it has waited {@link #getAgingAfterMs()}; null: no guard. */
    public String getAgingUpTo() {
        return agingUpTo;
    }

    /** Calls granted in the last hour because the starvation guard lifted them. */
    public long getAgedLastHour() {
        return agedLastHour;
    }

    private static Map<String, Long> byClassName(Map<CallClass, Long> values, Long absent) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (CallClass c : CallClass.values()) {
            out.put(c.name(), values.getOrDefault(c, absent));
        }
        return Collections.unmodifiableMap(out);
    }

    public String getName() {
        return name;
    }

    public int getCalls() {
        return calls;
    }

    public long getWindowMs() {
        return windowMs;
    }

    public double getWindowSeconds() {
        return windowMs / 1000.0;
    }

    public long getUsedInWindow() {
        return usedInWindow;
    }

    public Instant getNextSlotAt() {
        return nextSlotAt;
    }

    /** The end of the limit's cool-down after a vendor's "slow down"; null when not paused. */
    public Instant getPausedUntil() {
        return pausedUntil;
    }

    /** What a limit did lately: sends per 10 s over the last 10 minutes (oldest first), ended calls of the last hour. */
    public record Recent(List<Long> sendsPerTenSeconds, long expiredLastHour, long abandonedLastHour,
                         long agedLastHour) implements Serializable {

        /** Nothing lately. */
        public static final Recent NONE = new Recent(java.util.Collections.nCopies(60, 0L), 0, 0, 0);
    }

    /** Sends per 10 s over the last 10 minutes, 60 of them, oldest first (the last one is the current 10 s). */
    public List<Long> getSendsPerTenSeconds() {
        return sendsPerTenSeconds;
    }

    /** Waiting calls that ended without a grant (lease or deadline ran out) in the last hour. */
    public long getExpiredLastHour() {
        return expiredLastHour;
    }

    /** Grants that ended without an outcome within their lease in the last hour. */
    public long getAbandonedLastHour() {
        return abandonedLastHour;
    }

    /** The limit's own starving mark, ms; null when it uses the server's default. */
    public Long getStarvingAfterMs() {
        return starvingAfterMs;
    }

    /** When the vendor last said "slow down" (a 429, or a 503 with Retry-After), or null. */
    public Instant getSlowedAt() {
        return slowedAt;
    }

    /** The status of that signal, or null. */
    public Integer getSlowedBy() {
        return slowedBy;
    }

    /** The program whose call's outcome started that cool-down, or null. */
    public String getSlowedByProgram() {
        return slowedByProgram;
    }

    /** That call's id, or null. */
    public Long getSlowedByCall() {
        return slowedByCall;
    }

    /** The longest Retry-After a program's outcome is taken at (the limit's maxCoolDown). */
    public long getMaxCoolDownMs() {
        return maxCoolDownMs;
    }

    /** Every rule's window and its use: the limit's own rule first, then its more rules by window. */
    public List<RuleUse> getWindows() {
        List<RuleUse> all = new java.util.ArrayList<>();
        all.add(ownRule);
        all.addAll(moreRules);
        return all;
    }

    /** The minimum spacing between two sends, ms (0: none). */
    public long getMinIntervalMs() {
        return minIntervalMs;
    }

    /** The cool-down ladder's steps, ms. */
    public List<Long> getCoolDownLadderMs() {
        return coolDownLadderMs;
    }

    /** When these numbers were read, on the database's clock (relative times are shown against it). */
    public Instant getAsOf() {
        return asOf;
    }

    /** The cool-down ladder's step (0: no recent "slow down" from the vendor). */
    public int getCoolDownStep() {
        return coolDownStep;
    }

    /** Sends saved because submissions joined a live call of the same dedupe key. */
    public long getSavedSends() {
        return savedSends;
    }

    /** Waiting calls per class, highest class first; every class is present. */
    public Map<String, Long> getWaiting() {
        return waiting;
    }

    public long getWaitingTotal() {
        return waiting.values().stream().mapToLong(Long::longValue).sum();
    }

    /** How long the oldest waiting call of each class has waited, in ms; null where none waits. */
    public Map<String, Long> getOldestWaitMs() {
        return oldestWaitMs;
    }
}
