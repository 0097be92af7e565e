package dev.gate.store;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which limits a try found of one rule (a sliding window at its declared rate: {@link FreeSlot.TryStatement}), learnt
 * from the try statements' answers. A hint that spares a limit of more a second statement on each try; never a
 * decision: the one-rule form checks the limit itself and decides nothing on any other. Bounded: past
 * {@link #MOST_REMEMBERED} limits of more than one rule it starts again (each then costs one more statement, once).
 */
final class OneRuleLimits {

    static final int MOST_REMEMBERED = 10_000;

    private final Set<String> notOneRule = ConcurrentHashMap.newKeySet();

    /** False when {@code limit} was of more than one rule when last seen. */
    boolean mayBeOneRule(String limit) {
        return !notOneRule.contains(limit);
    }

    /** {@code limit} seen of one rule or not by a try statement. */
    void seen(String limit, boolean oneRule) {
        if (oneRule) {
            notOneRule.remove(limit);
            return;
        }
        if (notOneRule.size() >= MOST_REMEMBERED) {
            notOneRule.clear();
        }
        notOneRule.add(limit);
    }
}
