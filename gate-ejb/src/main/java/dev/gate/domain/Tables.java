package dev.gate.domain;

import dev.gate.rules.TableCare;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The gate's tables as the statistics views describe them, and how a vacuum of one went (read by the store). */
public final class Tables {

    private Tables() {
    }

    /** One table: its care figures, and its size on disk in bytes (indexes included). */
    public record Table(TableCare.Table care, long bytes) {
    }

    /** A transaction that holds vacuum back: its session (pid), its program, since when, and its state. */
    public record Holder(int pid, String who, Instant since, String state) {
    }

    /**
     * What the statistics say now (the database's clock): the tables, whether autovacuum is on globally, the oldest
     * transaction holding vacuum back (if any) and whether other roles' transactions are visible to the gate.
     */
    public record Snapshot(Instant at, List<Table> tables, boolean autovacuumOn, Optional<Holder> oldest,
                           boolean seesAllSessions) {

        public List<TableCare.Table> care() {
            return tables.stream().map(Table::care).toList();
        }
    }

    /** How a vacuum went. */
    public enum Vacuumed {
        /** Done (and analyzed). */
        DONE,
        /** Another vacuum or a lock of an incompatible kind held the table: skipped, nothing waited. */
        SKIPPED_LOCKED,
        /** The gate's role may not vacuum the table (another role owns it): skipped. */
        NOT_ALLOWED,
        /** It ran past its time and was cancelled: what it did stays, the rest waits for the next one. */
        TIMED_OUT
    }
}
