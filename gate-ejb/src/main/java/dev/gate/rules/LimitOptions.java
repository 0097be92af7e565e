package dev.gate.rules;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A limit's options beside its main rule: minimum spacing between sends, more rules, its cool-down ladder, the
 * margin its window cap keeps for grants on their way to their callers, its starvation guard ({@code aging}, null:
 * off, the strict order), whether programs take turns inside a class ({@code fairPrograms}; not with a guard) and
 * its burst allowance (sends that may go back to back after idle time; one: none), and whether its rate adapts to
 * the vendor's signals ({@link AdaptiveRate}), and whether it is a template whose calls each name a key, every key
 * a limit of its own with these rules ({@link LimitKey}), and (a keyed limit's) the parent limit whose beat and window
 * each of its keys' grants must fit too (null: none), and how long its line may grow ({@link LineSize}).
 */
public record LimitOptions(Duration minInterval, List<Pace> moreRules, CoolDownLadder coolDown,
                           ReceiptMargin receiptMargin, Aging aging, boolean fairPrograms, int burst,
                           boolean adaptive, boolean keyed, String parent, LineSize size) {

    public LimitOptions {
        moreRules = List.copyOf(moreRules);
        Objects.requireNonNull(size, "size");
        Objects.requireNonNull(receiptMargin, "receiptMargin");
        if (aging != null && fairPrograms) {
            throw new IllegalArgumentException("a limit takes either the starvation guard or programs taking turns, "
                    + "not both");
        }
        if (parent != null && !keyed) {
            throw new IllegalArgumentException("a parent limit is for a keyed limit (its keys' grants fit both)");
        }
        if (burst < 1) {
            throw new IllegalArgumentException("burst must be at least 1 (no burst), was " + burst);
        }
        if (minInterval.isNegative()) {
            throw new IllegalArgumentException("minInterval must not be negative");
        }
    }
}
