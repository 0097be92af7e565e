package dev.gate.app;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The gate's tables as the last upkeep check found them, for operators: which tables autovacuum does not look after,
 * whether the gate vacuums those itself, the ones left to grow (autovacuum off and self-vacuum off), the transaction
 * that has held vacuum back too long (if any), the last vacuum the gate ran, and each table's figures.
 */
public record TableHealth(Instant at, List<String> autovacuumOff, boolean selfVacuum, List<String> leftToGrow,
                          Optional<HeldBack> heldBack, boolean seesAllSessions, Optional<Vacuum> lastVacuum,
                          List<Figures> tables) {

    /** A transaction holding vacuum back: its program (application name), session, state, and since when. */
    public record HeldBack(String who, int pid, String state, Instant since) {
    }

    /** A vacuum the gate ran: the table, when, how it went (DONE, SKIPPED_LOCKED, TIMED_OUT), how long it took. */
    public record Vacuum(String table, Instant at, String result, long deadRowsBefore, Duration took) {
    }

    /** One table: live and dead rows, size on disk (indexes included), whether autovacuum looks after it. */
    public record Figures(String table, long liveRows, long deadRows, long bytes, boolean autovacuumOn) {
    }
}
