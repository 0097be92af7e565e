package dev.gate.web.status;

import dev.gate.api.CallClass;
import dev.gate.api.LimitStatus;
import dev.gate.api.RuleUse;
import dev.gate.app.LineDefaults;

import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One limit as the status page draws it: the line as bars (one per class, highest first, height = waiting calls),
 * the window as a gauge, the pause and the next slot in words. Plain values, computed once per read.
 */
public final class Panel implements Serializable {

    private static final long serialVersionUID = 1L;

    /** One class's bar: its waiting calls, its oldest wait, and whether that wait passed the starving mark. */
    public record Bar(String callClass, long waiting, Long oldestWaitMs, int heightPercent, boolean starving)
            implements Serializable {

        /** "BACKFILL 212, oldest 14 min". */
        public String getLabel() {
            return callClass + " " + waiting + (oldestWaitMs == null ? "" : ", oldest " + Words.span(oldestWaitMs));
        }

        public String getCallClass() {
            return callClass;
        }

        public long getWaiting() {
            return waiting;
        }

        public int getHeightPercent() {
            return heightPercent;
        }

        public boolean isStarving() {
            return starving;
        }
    }

    private final LimitStatus limit;
    private final List<Bar> bars;
    private final long starvingAfterMs;

    /** One rule's gauge: "412 of 600 used in the last 60 s", "4,120 of 10,000 used today, resets in 3 h". */
    public record Gauge(String text, int percent) implements Serializable {
        public String getText() {
            return text;
        }

        public int getPercent() {
            return percent;
        }
    }

    /** A limit's panel; a class is starving after the limit's own mark, else after {@code starvingByDefault}. */
    Panel(LimitStatus limit, Duration starvingByDefault) {
        this.limit = limit;
        Duration starvingAfter = limit.getStarvingAfterMs() == null ? starvingByDefault
                : Duration.ofMillis(limit.getStarvingAfterMs());
        this.starvingAfterMs = starvingAfter.toMillis();
        long most = 0;
        for (CallClass c : CallClass.values()) {
            most = Math.max(most, limit.getWaiting().get(c.name()));
        }
        List<Bar> made = new ArrayList<>();
        for (CallClass c : CallClass.values()) {
            long waiting = limit.getWaiting().get(c.name());
            Long oldest = limit.getOldestWaitMs().get(c.name());
            // a class with calls always shows: at least 4% of the panel's height
            int height = waiting == 0 ? 0 : (int) Math.max(4, Math.round(100.0 * waiting / most));
            made.add(new Bar(c.name(), waiting, oldest, height,
                    oldest != null && oldest >= starvingAfter.toMillis()));
        }
        this.bars = List.copyOf(made);
    }

    public String getName() {
        return limit.getName();
    }

    /** "600 per 60 s". */
    public String getRule() {
        return limit.getCalls() + " per " + Words.window(limit.getWindowMs());
    }

    public List<Bar> getBars() {
        return bars;
    }

    public long getWaitingTotal() {
        return limit.getWaitingTotal();
    }

    public boolean isStarving() {
        return bars.stream().anyMatch(Bar::starving);
    }

    /** A gauge per rule: the limit's own first, then its more rules. */
    public List<Gauge> getWindows() {
        List<Gauge> gauges = new ArrayList<>();
        for (RuleUse r : limit.getWindows()) {
            String text = r.getResetsAt() == null
                    ? r.getUsed() + " of " + r.getCalls() + " used in the last " + Words.window(r.getWindowMs())
                    : String.format(java.util.Locale.ROOT, "%,d of %,d used ", r.getUsed(), r.getCalls())
                    + (r.getWindowMs() == 86_400_000L ? "today" : "in this " + Words.window(r.getWindowMs())
                    + " block") + ", resets in "
                    + Words.span(Math.max(0, Duration.between(limit.getAsOf(), r.getResetsAt()).toMillis()))
                    + " (" + r.getAlignedAt() + " " + r.getAlignedZone() + ")";
            gauges.add(new Gauge(text, (int) Math.min(100, Math.round(100.0 * r.getUsed() / r.getCalls()))));
        }
        return gauges;
    }

    /** An aligned rule's part of the declaration; empty for a sliding one. */
    private static String aligned(RuleUse r) {
        return r.getAlignedZone() == null ? "" : ", \"aligned\": {\"zone\": \"" + r.getAlignedZone()
                + "\", \"at\": \"" + r.getAlignedAt() + "\"}";
    }

    /** The limit's rules and options as the API's PUT body: what the page's form starts from. */
    public String getDeclaration() {
        StringBuilder j = new StringBuilder("{\"calls\": ").append(limit.getCalls())
                .append(", \"windowSeconds\": ").append(limit.getWindowMs() / 1000)
                .append(aligned(limit.getWindows().get(0)));
        if (limit.getMinIntervalMs() > 0) {
            j.append(", \"minIntervalMs\": ").append(limit.getMinIntervalMs());
        }
        List<RuleUse> rules = limit.getWindows();
        if (rules.size() > 1) {
            j.append(", \"rules\": [");
            for (int i = 1; i < rules.size(); i++) {
                j.append(i == 1 ? "" : ", ").append("{\"calls\": ").append(rules.get(i).getCalls())
                        .append(", \"windowSeconds\": ").append(rules.get(i).getWindowMs() / 1000)
                        .append(aligned(rules.get(i))).append('}');
            }
            j.append(']');
        }
        j.append(", \"coolDownLadderSeconds\": [");
        List<Long> steps = limit.getCoolDownLadderMs();
        for (int i = 0; i < steps.size(); i++) {
            j.append(i == 0 ? "" : ", ").append(steps.get(i) / 1000);
        }
        j.append(']');
        if (limit.getStarvingAfterMs() != null) {
            j.append(", \"starvingAfterSeconds\": ").append(limit.getStarvingAfterMs() / 1000);
        }
        if (limit.getAgingAfterMs() != null) {
            j.append(", \"agingAfterSeconds\": ").append(limit.getAgingAfterMs() / 1000)
                    .append(", \"agingUpTo\": \"").append(limit.getAgingUpTo()).append('"');
        }
        if (limit.isFairPrograms()) {
            j.append(", \"fairPrograms\": true");
        }
        if (limit.getBurst() > 1) {
            j.append(", \"burst\": ").append(limit.getBurst());
        }
        if (limit.getEffectiveCalls() != null) {
            j.append(", \"adaptive\": true");
        }
        LimitStatus.LineBounds line = limit.getLine();
        if (line.getMaxWaiting() != LineDefaults.MAX_WAITING) {
            j.append(", \"maxWaiting\": ").append(line.getMaxWaiting());
        }
        if (line.getMaxWaitingPerProgram() != null) {
            j.append(", \"maxWaitingPerProgram\": ").append(line.getMaxWaitingPerProgram());
        }
        if (line.getMaxKeys() != LineDefaults.MAX_KEYS) {
            j.append(", \"maxKeys\": ").append(line.getMaxKeys());
        }
        return j.append('}').toString();
    }

    /**
     * The limit's burst allowance and its order beside class and arrival, in words: the starvation guard (with its
     * grants of the last hour apart) or programs taking turns; empty when it has none of them.
     */
    public String getGuard() {
        String pacing = (limit.getBurst() > 1 ? "; bursts of " + limit.getBurst() + " after idle time" : "")
                + (limit.getEffectiveCalls() == null ? "" : "; adaptive: " + limit.getEffectiveCalls() + " of "
                + limit.getCalls() + " calls per window now")
                + (limit.isKeyed() ? "; keyed: " + limit.getOpenKeys() + " open keys, each its own line at this rate"
                + (limit.getParent() == null ? "" : ", all within " + limit.getParent()) : "");
        if (limit.isFairPrograms()) {
            return pacing + "; programs take turns in each class";
        }
        if (limit.getAgingAfterMs() == null) {
            return pacing;
        }
        return pacing + guard();
    }

    private String guard() {
        return "; guard: after " + Words.span(limit.getAgingAfterMs()) + " ranked as " + limit.getAgingUpTo() + " ("
                + limit.getAgedLastHour() + (limit.getAgedLastHour() == 1 ? " grant" : " grants") + " by it in the last hour)";
    }

    /**
     * The line's size and how often it was full: "line: at most 10000 waiting (100 per program); full 12 times, last
     * 08:14:03Z".
     */
    public String getLineSize() {
        LimitStatus.LineBounds line = limit.getLine();
        String size = "line: at most " + line.getMaxWaiting() + " waiting"
                + (limit.isKeyed() ? " in each key's line, " + line.getMaxKeys() + " keys" : "")
                + (line.getMaxWaitingPerProgram() == null ? "" : " (" + line.getMaxWaitingPerProgram()
                + " per program)");
        return size + (line.getRefused() == 0 ? "; never full"
                : "; full " + line.getRefused() + (line.getRefused() == 1 ? " time" : " times") + ", last at "
                + line.getLastRefusedAt());
    }

    /** Whether a join was ever refused for a full line. */
    public boolean isEverFull() {
        return limit.getLine().getRefused() > 0;
    }

    /** The mark after which a class is starving, in words. */
    public String getStarvingAfter() {
        return Words.span(starvingAfterMs);
    }

    public boolean isPaused() {
        return limit.getPausedUntil() != null;
    }

    /**
     * "vendor says 3 left, for 25 s, reported by worker (call 42)": the vendor's own count in force, which an
     * operator's resume ends (empty: none).
     */
    public String getVendorCount() {
        if (limit.getVendorLeft() == null) {
            return "";
        }
        return "vendor says " + limit.getVendorLeft() + " left, for "
                + Words.span(Math.max(0, Duration.between(limit.getAsOf(), limit.getVendorResetAt()).toMillis()))
                + (limit.getVendorProgram() == null ? "" : ", reported by " + limit.getVendorProgram()
                + (limit.getVendorCall() == null ? "" : " (call " + limit.getVendorCall() + ")"));
    }

    public Instant getVendorResetAt() {
        return limit.getVendorResetAt();
    }

    /** "paused 4 m 12 s more (cool-down step 3)"; empty when not paused. */
    public String getPause() {
        if (!isPaused()) {
            return "";
        }
        String more = "paused " + Words.span(Duration.between(limit.getAsOf(), limit.getPausedUntil()).toMillis())
                + " more";
        if (limit.getCoolDownStep() == 0) {
            return more; // an operator's pause
        }
        return more + " (cool-down step " + limit.getCoolDownStep() + " of " + limit.getCoolDownLadderMs().size()
                + (limit.getSlowedAt() == null ? ")" : ", after a " + limit.getSlowedBy() + " "
                + Words.span(Duration.between(limit.getSlowedAt(), limit.getAsOf()).toMillis()) + " ago"
                + (limit.getSlowedByProgram() == null ? "" : " reported by " + limit.getSlowedByProgram()
                + (limit.getSlowedByCall() == null ? "" : " (call " + limit.getSlowedByCall() + ")")) + ")");
    }

    public String getPausedUntil() {
        return limit.getPausedUntil() == null ? "" : limit.getPausedUntil().toString();
    }

    /** "in 120 ms", "now" when due. */
    public String getNextSlot() {
        Instant next = limit.getNextSlotAt();
        if (next == null || !next.isAfter(limit.getAsOf())) {
            return "now";
        }
        return "in " + Words.span(Duration.between(limit.getAsOf(), next).toMillis());
    }

    /** Sends per 10 s over the last 10 minutes as an SVG polyline in a 300 x 40 box, oldest at the left. */
    public String getSendsChart() {
        List<Long> b = limit.getSendsPerTenSeconds();
        long most = Math.max(1, b.stream().mapToLong(Long::longValue).max().orElse(1));
        StringBuilder points = new StringBuilder();
        for (int i = 0; i < b.size(); i++) {
            double x = b.size() == 1 ? 0 : 300.0 * i / (b.size() - 1);
            double y = 39 - 37.0 * b.get(i) / most;
            points.append(i == 0 ? "" : " ").append(Math.round(x * 10) / 10.0).append(',').append(Math.round(y * 10) / 10.0);
        }
        return points.toString();
    }

    public long getSendsLastTenMinutes() {
        return limit.getSendsPerTenSeconds().stream().mapToLong(Long::longValue).sum();
    }

    /** The send rate of the last whole 10 s, per second. */
    public String getSendRate() {
        List<Long> b = limit.getSendsPerTenSeconds();
        double perSecond = b.size() < 2 ? 0 : b.get(b.size() - 2) / 10.0;
        return perSecond == Math.rint(perSecond) ? String.valueOf((long) perSecond) : String.valueOf(perSecond);
    }

    /** "expired 3, abandoned 1 in the last hour"; empty when none. */
    public String getEnded() {
        if (limit.getExpiredLastHour() == 0 && limit.getAbandonedLastHour() == 0) {
            return "";
        }
        return "expired " + limit.getExpiredLastHour() + ", abandoned " + limit.getAbandonedLastHour()
                + " in the last hour";
    }

    /** "cool-down ladder 2 s, 5 s, 15 s, 30 s, 60 s; minimum spacing 100 ms". */
    public String getLadder() {
        StringBuilder s = new StringBuilder("cool-down ladder ");
        List<Long> steps = limit.getCoolDownLadderMs();
        for (int i = 0; i < steps.size(); i++) {
            s.append(i == 0 ? "" : ", ").append(Words.span(steps.get(i)));
        }
        if (limit.getMinIntervalMs() > 0) {
            s.append("; minimum spacing ").append(Words.span(limit.getMinIntervalMs()));
        }
        return s.toString();
    }

    public long getSavedSends() {
        return limit.getSavedSends();
    }

    public int getCoolDownStep() {
        return limit.getCoolDownStep();
    }
}
