package dev.gate.store;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What one grant transaction did for one limit: the grants it committed, the database time it saw, and when the
 * limit is next due (absent when its line is empty).
 */
public record GrantPass(String limit, List<Grant> grants, Instant dbNow, Optional<Instant> nextDueAt) {

    /** How long this instance should sleep before the limit is due, measured on the database's clock. */
    public Optional<Duration> dueIn() {
        return nextDueAt.map(due -> due.isAfter(dbNow) ? Duration.between(dbNow, due) : Duration.ZERO);
    }
}
