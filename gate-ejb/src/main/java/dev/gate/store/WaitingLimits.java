package dev.gate.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The limits with waiting calls, each with the earliest time its beat or its cool-down lets it send, as read at
 * {@code dbNow}: the slot loop runs a grant transaction only for those due, so 10,000 limits with waiting calls cost
 * one read per pass, not 10,000 transactions.
 *
 * @param readNanos {@link System#nanoTime()} when read: the database's time now is {@code dbNow} plus what passed
 */
public record WaitingLimits(Instant dbNow, long readNanos, List<Due> limits) {

    /** A limit with waiting calls: its next beat slot, and the end of its cool-down (null when none runs). */
    public record Due(String limit, Instant nextSlotAt, Instant pausedUntil) {

        /** Nothing of this limit can be granted before this (its window cap may say later still). */
        public Instant notBefore() {
            return pausedUntil != null && pausedUntil.isAfter(nextSlotAt) ? pausedUntil : nextSlotAt;
        }
    }

    /** How long until the limit may send, on the database's clock (zero or negative: due now). */
    public Duration untilDue(Due limit) {
        Instant now = dbNow.plusNanos(System.nanoTime() - readNanos);
        return Duration.between(now, limit.notBefore());
    }
}
