package dev.gate.store;

import dev.gate.domain.Grant;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What one grant transaction did for one limit: the grants it committed, the database time it saw, and when the
 * limit is next due (absent when its line is empty), or that it was skipped because another held the lock; and, for
 * a key under a parent, the parent when it was the parent that held the key back (until {@code nextDueAt}).
 */
public record GrantPass(List<Grant> grants, Instant dbNow, Optional<Instant> nextDueAt,
                        boolean skipped, String heldByParent) {

    public GrantPass(List<Grant> grants, Instant dbNow, Optional<Instant> nextDueAt, boolean skipped) {
        this(grants, dbNow, nextDueAt, skipped, null);
    }

    /** No pass was made (nothing to grant: a submission joined a live call). */
    public static GrantPass nothing() {
        return new GrantPass(List.of(), Instant.EPOCH, Optional.empty(), false);
    }

    /** Another transaction held the limit's lock, so this pass did nothing; the loop must look again. */
    public static GrantPass lockedElsewhere() {
        return new GrantPass(List.of(), Instant.EPOCH, Optional.empty(), true);
    }

    /** How long this instance should sleep before the limit is due, measured on the database's clock. */
    public Optional<Duration> dueIn() {
        if (skipped) {
            return Optional.of(Duration.ZERO);
        }
        return nextDueAt.map(due -> due.isAfter(dbNow) ? Duration.between(dbNow, due) : Duration.ZERO);
    }
}
