package dev.gate.rules;

import java.time.Duration;
import java.time.Instant;

/**
 * Where the next slot lies after a send. A send that went out slightly late keeps the beat (next = slot + gap), so
 * timer lateness does not lose slots; only when the schedule slipped by more than one whole gap (an idle line, a long
 * pause) does it restart from the actual send (next = sent + gap), which never allows a burst of catch-up sends.
 */
public final class Beat {
    // The slot passed in is the one the send was due at (SlotDecision.notBefore): the beat, or the moment a window
    // cap, the minimum spacing or a cool-down let it go.

    private Beat() {
    }

    public static Instant next(Instant slot, Instant sentAt, Duration gap) {
        return next(slot, sentAt, gap, 1);
    }

    /**
     * With a burst allowance of {@code burst} sends (GCRA's tolerance: {@code burst - 1} gaps): a restart after a slip
     * may leave the next slot up to that many gaps in the past, so after idle time up to {@code burst} sends go back
     * to back, then the beat resumes; the allowance refills by one per gap of idle time. One: no burst.
     */
    public static Instant next(Instant slot, Instant sentAt, Duration gap, int burst) {
        return next(slot, sentAt, gap, burst, Cost.ONE);
    }

    /**
     * After a call of {@code cost}: the beat moves a gap per unit (a call of cost 3 takes three gaps); a restart
     * after a slip counts the units from the actual send, less the burst allowance.
     */
    public static Instant next(Instant slot, Instant sentAt, Duration gap, int burst, Cost cost) {
        Instant kept = slot.plus(cost.beat(gap));
        return restartAfter(slot, sentAt, gap, burst, cost).map(sentAt::plus).filter(kept::isBefore).orElse(kept);
    }

    /**
     * Empty when the send keeps the beat (next = slot + gap); else the schedule restarts from the actual send: the
     * next slot is this long after it (one gap, less the burst allowance), and never before slot + gap. A grant that
     * decides before it records its send (a round trip later) applies this to the recorded time.
     */
    public static java.util.Optional<Duration> restartAfter(Instant slot, Instant sentAt, Duration gap, int burst) {
        return restartAfter(slot, sentAt, gap, burst, Cost.ONE);
    }

    /** As above, after a call of {@code cost}: its units' gaps from the actual send, less the burst allowance. */
    public static java.util.Optional<Duration> restartAfter(Instant slot, Instant sentAt, Duration gap, int burst,
                                                            Cost cost) {
        Duration slip = Duration.between(slot, sentAt);
        if (slip.compareTo(gap) <= 0) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(cost.beat(gap).minus(gap.multipliedBy(burst - 1L)));
    }
}
