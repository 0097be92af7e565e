package dev.gate.web.status;

import dev.gate.client.CallClass;
import dev.gate.client.LimitStatus;

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

    Panel(LimitStatus limit, Duration starvingAfter) {
        this.limit = limit;
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

    /** "412 of 600 used in the last 60 s". */
    public String getWindowUse() {
        return limit.getUsedInWindow() + " of " + limit.getCalls() + " used in the last " + Words.window(limit.getWindowMs());
    }

    public int getWindowPercent() {
        return (int) Math.min(100, Math.round(100.0 * limit.getUsedInWindow() / limit.getCalls()));
    }

    public boolean isPaused() {
        return limit.getPausedUntil() != null;
    }

    /** "paused 4 m 12 s more (cool-down step 3)"; empty when not paused. */
    public String getPause() {
        if (!isPaused()) {
            return "";
        }
        String more = "paused " + Words.span(Duration.between(limit.getAsOf(), limit.getPausedUntil()).toMillis())
                + " more";
        return limit.getCoolDownStep() > 0 ? more + " (cool-down step " + limit.getCoolDownStep() + ")" : more;
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

    public long getSavedSends() {
        return limit.getSavedSends();
    }

    public int getCoolDownStep() {
        return limit.getCoolDownStep();
    }
}
