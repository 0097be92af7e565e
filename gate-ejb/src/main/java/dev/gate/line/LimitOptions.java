package dev.gate.line;

import java.time.Duration;
import java.util.List;

/**
 * A limit's options beside its main rule: minimum spacing between sends, more rules, and its cool-down ladder.
 */
public record LimitOptions(Duration minInterval, List<Pace> moreRules, CoolDownLadder coolDown) {

    public LimitOptions {
        moreRules = List.copyOf(moreRules);
        if (minInterval.isNegative()) {
            throw new IllegalArgumentException("minInterval must not be negative");
        }
    }
}
