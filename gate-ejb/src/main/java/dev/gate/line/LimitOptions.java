package dev.gate.line;

import java.time.Duration;
import java.util.List;

/**
 * A limit's options beside its main rule: minimum spacing between sends, more rules, and its cool-down ladder.
 */
public record LimitOptions(Duration minInterval, List<Pace> moreRules, CoolDownLadder coolDown) {

    public static final LimitOptions DEFAULTS = new LimitOptions(Duration.ZERO, List.of(),
            new CoolDownLadder(CoolDownLadder.DEFAULT_STEPS, Duration.ofSeconds(2), 10));

    public LimitOptions {
        moreRules = List.copyOf(moreRules);
        if (minInterval.isNegative()) {
            throw new IllegalArgumentException("minInterval must not be negative");
        }
    }
}
