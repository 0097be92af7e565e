package dev.gate.rules;

import dev.gate.api.CallClass;

import java.time.Duration;
import java.util.Objects;

/**
 * The starvation guard of a limit (opt-in): a call that has waited longer than {@code after} is ranked as class
 * {@code upTo} when that is higher than its own, keeping its arrival time. Under a flood of a higher class, a backfill
 * call then goes at the first slot after {@code after} (it is older than every call of {@code upTo} that came later);
 * below {@code upTo}'s own traffic nothing changes. Off, the strict order stands: class first, then arrival. The
 * ranking itself is the grant statement's ({@code ChosenHead.AGING}): it picks among each class's oldest call.
 */
public record Aging(Duration after, CallClass upTo) {

    public Aging {
        Objects.requireNonNull(after, "after");
        Objects.requireNonNull(upTo, "upTo");
        if (after.isNegative() || after.isZero()) {
            throw new IllegalArgumentException("aging: after must be positive, was " + after);
        }
        if (upTo == CallClass.BACKFILL) {
            throw new IllegalArgumentException("aging: upTo BACKFILL lifts nobody; name a higher class");
        }
    }

    @Override
    public String toString() {
        return "after " + after + " ranked as " + upTo;
    }
}
