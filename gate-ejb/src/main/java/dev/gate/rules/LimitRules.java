package dev.gate.rules;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Everything that paces one limit: its rules (a vendor often has several at once: 10 per second and 600 per minute
 * and 50,000 per day), a minimum spacing between sends, and a burst allowance (sends that may go back to back after
 * idle time; one: none). A send must fit every rule; the beat uses the longest gap.
 */
public record LimitRules(List<Pace> rules, Duration minInterval, int burst) {

    /** Without a burst allowance. */
    public LimitRules(List<Pace> rules, Duration minInterval) {
        this(rules, minInterval, 1);
    }

    public LimitRules {
        rules = List.copyOf(rules);
        if (rules.isEmpty()) {
            throw new IllegalArgumentException("a limit needs at least one rule");
        }
        Objects.requireNonNull(minInterval, "minInterval");
        if (minInterval.isNegative()) {
            throw new IllegalArgumentException("minInterval must not be negative: " + minInterval);
        }
        if (burst < 1) {
            throw new IllegalArgumentException("burst must be at least 1 (no burst): " + burst);
        }
    }

    public static LimitRules of(Pace pace) {
        return new LimitRules(List.of(pace), Duration.ZERO);
    }

    /** The beat's gap: the slowest rule's window / calls, and never less than the minimum spacing. */
    public Duration gap() {
        Duration gap = rules.stream().map(Pace::gap).max(Comparator.naturalOrder()).orElseThrow();
        return gap.compareTo(minInterval) >= 0 ? gap : minInterval;
    }
}
