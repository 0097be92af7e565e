package dev.gate.rules;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * When the gate vacuums and analyzes its own tables, and when it warns that vacuum cannot keep them small. The line's
 * tables churn (every call is written three times and deleted by retention, every send written and deleted); their
 * dead rows are space only a vacuum gives back. Where autovacuum looks after a table (on, globally and for the table),
 * the gate leaves it alone. Where it does not, a table is the gate's to vacuum once its dead rows pass {@code floor}
 * plus {@code share} of its live rows (autovacuum's own rule, with the gate's values), at most once per {@code rest},
 * the one with the most dead rows first; and to analyze once its rows changed since its last analyze pass
 * {@link #ANALYZE_FLOOR} plus {@code share} of its live rows (autovacuum's analyze rule). The send log only grows
 * between retention's deletions: without an analyze its statistics stay those of an empty table, and a plan made then
 * (a session keeps its plans) reads the whole log for the one send it looks up. A transaction that has held back
 * vacuum (its snapshot or transaction id is older than every dead row it keeps) for more than {@code heldBackAfter} is
 * worth a warning: no vacuum, the gate's or autovacuum's, can remove what it may still see.
 */
public record TableCare(long floor, double share, Duration rest, Duration heldBackAfter) {

    /** 1,000 dead rows plus 10% of the live ones; each table at most once a minute; held back for 10 minutes. */
    public static final TableCare DEFAULTS = new TableCare(1_000, 0.1, Duration.ofMinutes(1), Duration.ofMinutes(10));

    public TableCare {
        if (floor < 0 || share < 0 || rest.isNegative() || heldBackAfter.isNegative()) {
            throw new IllegalArgumentException("table care values must not be negative");
        }
    }

    /** Rows changed since a table's last analyze before it is analyzed again: autovacuum's own default (50). */
    public static final long ANALYZE_FLOOR = 50;

    /**
     * One of the gate's tables as the database's statistics have it: live and dead rows, whether autovacuum looks
     * after it (on globally and not switched off for the table), when it was last vacuumed by anyone (or null), the
     * rows inserted, updated or deleted since its last analyze, and when that was (or null).
     */
    public record Table(String name, long liveRows, long deadRows, boolean autovacuumOn, Instant lastVacuumedAt,
                        long changedSinceAnalyze, Instant lastAnalyzedAt) {

        /** A table as its vacuum sees it (nothing changed since its last analyze). */
        public Table(String name, long liveRows, long deadRows, boolean autovacuumOn, Instant lastVacuumedAt) {
            this(name, liveRows, deadRows, autovacuumOn, lastVacuumedAt, 0, null);
        }
    }

    /** Whether the table has dead rows enough for a vacuum (whoever runs it). */
    public boolean needsVacuum(Table t) {
        return t.deadRows() > 0 && t.deadRows() >= floor + (long) (share * t.liveRows());
    }

    /** The table the gate vacuums now, if any: autovacuum off for it, dead rows enough, not vacuumed just now. */
    public Optional<Table> next(List<Table> tables, Instant now) {
        return tables.stream()
                .filter(t -> !t.autovacuumOn() && needsVacuum(t))
                .filter(t -> t.lastVacuumedAt() == null || !t.lastVacuumedAt().plus(rest).isAfter(now))
                .max(Comparator.comparingLong(Table::deadRows));
    }

    /** Whether the table's statistics are due for an analyze (whoever runs it). */
    public boolean needsAnalyze(Table t) {
        return t.changedSinceAnalyze() > 0
                && t.changedSinceAnalyze() >= ANALYZE_FLOOR + (long) (share * t.liveRows());
    }

    /**
     * The table the gate analyzes now, if any: autovacuum off for it, rows changed enough, not analyzed just now; the
     * one with the most rows changed first.
     */
    public Optional<Table> nextAnalyze(List<Table> tables, Instant now) {
        return tables.stream()
                .filter(t -> !t.autovacuumOn() && needsAnalyze(t))
                .filter(t -> t.lastAnalyzedAt() == null || !t.lastAnalyzedAt().plus(rest).isAfter(now))
                .max(Comparator.comparingLong(Table::changedSinceAnalyze));
    }

    /** Whether a transaction open since {@code since} has held back vacuum long enough to warn of it. */
    public boolean heldBack(Instant since, Instant now) {
        return since != null && Duration.between(since, now).compareTo(heldBackAfter) > 0;
    }
}
