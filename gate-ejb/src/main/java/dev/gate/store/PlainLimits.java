package dev.gate.store;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which limits a try found plain (one rule on a sliding window at its declared rate: {@link FreeSlot.TryStatement}),
 * learnt from the try statements' answers. A hint that saves a limit that is not plain a second statement on each try;
 * never a decision: the plain form checks the limit itself and decides nothing on one that is not. Bounded: past
 * {@link #MOST_REMEMBERED} limits that are not plain it starts again (each then costs one more statement, once).
 */
final class PlainLimits {

    static final int MOST_REMEMBERED = 10_000;

    private final Set<String> notPlain = ConcurrentHashMap.newKeySet();

    /** False when {@code limit} was not plain when last seen. */
    boolean mayBePlain(String limit) {
        return !notPlain.contains(limit);
    }

    /** {@code limit} seen {@code plain} or not by a try statement. */
    void seen(String limit, boolean plain) {
        if (plain) {
            notPlain.remove(limit);
            return;
        }
        if (notPlain.size() >= MOST_REMEMBERED) {
            notPlain.clear();
        }
        notPlain.add(limit);
    }
}
