package dev.gate.rules;

import java.time.Duration;
import java.util.Objects;

/**
 * The starvation guard of a limit (opt-in): a call that has waited longer than {@code after} is ranked as the class of
 * rank {@code upToRank} (0 is the highest class, {@link #LOWEST_RANK} the lowest) when that is higher than its own,
 * keeping its arrival time. Under a flood of a higher class, a backfill call then goes at the first slot after
 * {@code after} (it is older than every call of that class that came later); below that class's own traffic nothing
 * changes. Off, the strict order stands: class first, then arrival. The ranking itself is the grant statement's
 * ({@code ChosenHead.AGING}): it picks among each class's oldest call. Ranks, as the line stores them: the rules name
 * no class.
 */
public record Aging(Duration after, int upToRank) {

    /** The lowest class's rank: the line ranks its five classes 0 to 4. */
    public static final int LOWEST_RANK = 4;

    public Aging {
        Objects.requireNonNull(after, "after");
        if (after.isNegative() || after.isZero()) {
            throw new IllegalArgumentException("aging: after must be positive, was " + after);
        }
        if (upToRank < 0 || upToRank >= LOWEST_RANK) {
            throw new IllegalArgumentException("aging: up to rank " + upToRank + " lifts nobody; name a class above "
                    + "the lowest (rank 0 to " + (LOWEST_RANK - 1) + ")");
        }
    }

    @Override
    public String toString() {
        return "after " + after + " ranked as rank " + upToRank;
    }
}
