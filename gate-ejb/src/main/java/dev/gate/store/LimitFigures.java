package dev.gate.store;

import dev.gate.api.CallClass;
import dev.gate.domain.Limit;
import dev.gate.domain.Slot;
import dev.gate.rules.LimitOptions;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One limit as the store reads it in one go, on the database's clock ({@code now}): its declaration (its options
 * read inside the read: its rules are a lazy collection) and slot, the sends in its window, its saved sends, who
 * waits in each class and for how long, its recent history, its more rules' use, its open keys and its line's
 * refusals. The engine turns it into the status the operators read.
 */
public record LimitFigures(Limit limit, LimitOptions options, Slot slot, Instant now, long usedInWindow, long savedSends,
                           Map<CallClass, Long> waiting, Map<CallClass, Long> oldestWaitMs, Recent recent,
                           List<Rule> moreRules, long openKeys, long refusedFull, Instant lastFullAt) {

    /** Sends per 10 s over the last 10 minutes (oldest first), and the calls that ended without a send lately. */
    public record Recent(List<Long> sendsPerTenSeconds, long expiredLastHour, long abandonedLastHour,
                         long agedLastHour) {

        static final Recent NONE = new Recent(java.util.Collections.nCopies(60, 0L), 0, 0, 0);
    }

    /** One more rule of the limit and the sends in its window now (an aligned rule: in its block). */
    public record Rule(dev.gate.rules.Pace pace, long usedInWindow) {

        public int calls() {
            return pace.calls();
        }

        public long windowMs() {
            return pace.window().toMillis();
        }
    }
}
