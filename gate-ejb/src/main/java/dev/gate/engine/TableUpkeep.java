package dev.gate.engine;

import dev.gate.domain.Tables;

import dev.gate.rules.TableCare;
import dev.gate.store.GateTables;
import dev.gate.store.StoreUnavailable;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps the gate's tables from growing under constant load, whatever autovacuum does. Every {@link #CHECK_EVERY} it
 * reads the tables' statistics; where autovacuum does not look after a table (off globally, or for the table) and
 * the table's dead rows pass {@link TableCare}'s bound, it vacuums that table (one a check, the most dead first,
 * {@code VACUUM (SKIP_LOCKED, ANALYZE)}, cancelled after {@link #VACUUM_TIMEOUT}), and it analyzes one other whose
 * rows changed past the analyze bound (the send log, which only grows between retention's deletions, is never due a
 * vacuum but its plans need its statistics), unless the operator switched that off ({@code GATE_SELF_VACUUM=off}):
 * then it warns instead. It also warns of a transaction that has held vacuum back
 * too long. It runs on a thread of its own, never in a caller's path nor on the slot loop's scheduler, and takes no
 * lock a grant needs. Logs say each change of state once (not every check).
 */
public final class TableUpkeep {

    private static final Logger LOG = Logger.getLogger(TableUpkeep.class.getName());

    static final Duration CHECK_EVERY = Duration.ofSeconds(30);
    /** The first check waits for the instance's start to settle (its pool's first connections go to the line). */
    static final Duration FIRST_CHECK = Duration.ofSeconds(5);
    // Short: unlike autovacuum, a VACUUM of ours does not give way to a lock request, so a schema change (a new
    // version's migration) waits for it, and grants queue behind that change meanwhile. Here a vacuum takes well
    // under a second; what one does not finish, the next goes on with (pruned pages stay pruned).
    static final Duration VACUUM_TIMEOUT = Duration.ofSeconds(30);

    /** A vacuum this instance ran: the table, when, how it went, the dead rows before, and how long it took. */
    public record Vacuum(String table, Instant at, Tables.Vacuumed result, long deadRowsBefore, Duration took) {
    }

    /**
     * The last check: the tables' statistics, whether this instance vacuums them itself, the transaction holding
     * vacuum back past the span allowed (if any), and the last vacuum this instance ran (if any).
     */
    public record Status(Tables.Snapshot tables, boolean selfVacuum, Optional<Tables.Holder> heldBack,
                         Optional<Vacuum> lastVacuum, TableCare care) {

        /** The tables autovacuum does not look after. */
        public List<String> autovacuumOff() {
            return tables.tables().stream().filter(t -> !t.care().autovacuumOn()).map(t -> t.care().name()).toList();
        }

        /** Tables with dead rows past the bound that nobody will vacuum (autovacuum off, self-vacuum off). */
        public List<String> leftToGrow() {
            if (selfVacuum) {
                return List.of();
            }
            return tables.tables().stream().map(Tables.Table::care)
                    .filter(t -> !t.autovacuumOn() && care.needsVacuum(t)).map(TableCare.Table::name).toList();
        }
    }

    private final GateTables tables;
    private final EngineSettings settings;
    private final Health health;
    private final ScheduledExecutorService thread;
    private volatile Status last;
    // what the log said last, so it says each change once
    private List<String> saidOff = List.of();
    private String saidHeldBack;
    private boolean saidBlind;
    // tables the gate's role may not vacuum (another role owns them): said once, not tried again
    private final java.util.Set<String> notAllowed = java.util.concurrent.ConcurrentHashMap.newKeySet();

    TableUpkeep(GateTables tables, EngineSettings settings, Health health, ThreadFactory threads) {
        this.tables = tables;
        this.settings = settings;
        this.health = health;
        this.thread = Executors.newSingleThreadScheduledExecutor(threads);
    }

    void start() {
        thread.scheduleWithFixedDelay(this::checkQuietly, FIRST_CHECK.toMillis(), CHECK_EVERY.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    void stop() {
        thread.shutdownNow(); // a vacuum under way goes on in the database until it ends or its timeout
    }

    /** The last check, if there was one. */
    public Optional<Status> status() {
        return Optional.ofNullable(last);
    }

    private void checkQuietly() {
        try {
            check();
        } catch (StoreUnavailable e) {
            LOG.fine(() -> "table upkeep: the database is unavailable (" + e.getMessage() + "); next check in "
                    + CHECK_EVERY.toSeconds() + " s");
        } catch (RuntimeException e) {
            // never an outage, never fatal: the next check tries again
            LOG.log(Level.WARNING, "table upkeep failed; next check in " + CHECK_EVERY.toSeconds() + " s", e);
        }
    }

    /**
     * One check (the thread's, or a test's): reads the statistics, says what changed, vacuums one table if due.
     * Nothing while calls are paused (the database is unavailable): the health probe looks after that.
     */
    public Optional<Status> check() throws StoreUnavailable {
        if (health.isPaused()) {
            return Optional.empty();
        }
        TableCare care = settings.tableCare();
        Tables.Snapshot snap = tables.read();
        Optional<Tables.Holder> heldBack = snap.oldest().filter(h -> care.heldBack(h.since(), snap.at()));
        Status status = new Status(snap, settings.selfVacuum(), heldBack,
                last == null ? Optional.empty() : last.lastVacuum(), care);
        sayChanges(status);
        if (settings.selfVacuum()) {
            List<TableCare.Table> ours = snap.care().stream().filter(t -> !notAllowed.contains(t.name())).toList();
            Optional<TableCare.Table> due = care.next(ours, snap.at());
            if (due.isPresent()) {
                status = new Status(snap, true, heldBack, Optional.of(vacuum(due.get(), snap)), care);
            }
            // a table vacuumed now was analyzed with it
            Optional<TableCare.Table> stale = care.nextAnalyze(ours.stream()
                    .filter(t -> due.isEmpty() || !due.get().name().equals(t.name())).toList(), snap.at());
            if (stale.isPresent()) {
                analyze(stale.get());
            }
        }
        last = status;
        return Optional.of(status);
    }

    private Vacuum vacuum(TableCare.Table t, Tables.Snapshot snap) throws StoreUnavailable {
        long started = System.nanoTime();
        Tables.Vacuumed result = tables.vacuum(t.name(), VACUUM_TIMEOUT);
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        long bytes = snap.tables().stream().filter(x -> x.care().name().equals(t.name()))
                .mapToLong(Tables.Table::bytes).findFirst().orElse(0);
        String what = t.name() + " (" + String.format(Locale.ROOT, "%,d", t.deadRows()) + " dead rows, "
                + String.format(Locale.ROOT, "%,d", t.liveRows()) + " live, " + mb(bytes) + ")";
        switch (result) {
            case DONE -> LOG.info(() -> "vacuumed " + what + " in " + took.toMillis() + " ms: autovacuum does not "
                    + "look after it");
            case SKIPPED_LOCKED -> LOG.info(() -> "vacuum of " + what + " skipped: another vacuum or a schema change "
                    + "holds the table; tried again at a later check");
            case TIMED_OUT -> LOG.warning(() -> "vacuum of " + what + " cancelled after " + VACUUM_TIMEOUT.toSeconds()
                    + " s; what it did stays, the rest at a later check");
            case NOT_ALLOWED -> {
                notAllowed.add(t.name());
                LOG.warning(() -> "the gate's role may not vacuum " + what + " (another role owns it): its dead rows "
                        + "stay until its owner vacuums it or autovacuum is switched on for it; not tried again");
            }
        }
        return new Vacuum(t.name(), Instant.now(), result, t.deadRows(), took);
    }

    /** An analyze of a table whose statistics autovacuum does not renew, said to the operators as a vacuum is. */
    private void analyze(TableCare.Table t) throws StoreUnavailable {
        long started = System.nanoTime();
        Tables.Vacuumed result = tables.analyze(t.name(), VACUUM_TIMEOUT);
        long took = Duration.ofNanos(System.nanoTime() - started).toMillis();
        String what = t.name() + " (" + String.format(Locale.ROOT, "%,d", t.changedSinceAnalyze())
                + " rows changed since its last analyze, " + String.format(Locale.ROOT, "%,d", t.liveRows()) + " live)";
        switch (result) {
            // routine, as often as once a minute a table (the slot's one row changes on every grant): not an
            // operator's line; that the gate analyzes where autovacuum does not is said once (sayChanges)
            case DONE -> LOG.fine(() -> "analyzed " + what + " in " + took + " ms: autovacuum does not look after it; "
                    + "the plans of its statements follow its new statistics");
            case SKIPPED_LOCKED -> LOG.info(() -> "analyze of " + what + " skipped: a vacuum or a schema change holds "
                    + "the table; tried again at a later check");
            case TIMED_OUT -> LOG.warning(() -> "analyze of " + what + " cancelled after " + VACUUM_TIMEOUT.toSeconds()
                    + " s; tried again at a later check");
            case NOT_ALLOWED -> {
                notAllowed.add(t.name());
                LOG.warning(() -> "the gate's role may not analyze " + what + " (another role owns it): its "
                        + "statistics stay until its owner analyzes it or autovacuum is switched on for it; not tried "
                        + "again");
            }
        }
    }

    private void sayChanges(Status s) {
        List<String> off = s.autovacuumOff();
        if (!off.equals(saidOff)) {
            if (off.isEmpty()) {
                LOG.info("autovacuum looks after every gate table again");
            } else if (s.selfVacuum()) {
                LOG.info(() -> "autovacuum is off for " + String.join(", ", off) + " (" + (s.tables().autovacuumOn()
                        ? "switched off for the tables" : "autovacuum = off") + "): the gate vacuums them itself "
                        + "once their dead rows pass " + bound(s.care()) + ", and analyzes them once their rows "
                        + "changed since the last analyze pass " + TableCare.ANALYZE_FLOOR + " + "
                        + Math.round(s.care().share() * 100) + "% (GATE_SELF_VACUUM=off leaves them to you)");
            } else {
                LOG.warning(() -> "autovacuum is off for " + String.join(", ", off) + " and GATE_SELF_VACUUM=off: "
                        + "nothing removes their dead rows, the database will grow until they are vacuumed");
            }
            saidOff = off;
        }
        String held = s.heldBack().map(h -> h.pid() + "@" + h.since()).orElse(null);
        if (!Objects.equals(held, saidHeldBack)) {
            if (held == null) {
                LOG.info("vacuum is no longer held back by a long transaction");
            } else {
                Tables.Holder h = s.heldBack().get();
                LOG.warning(() -> "a transaction of '" + h.who() + "' (pid " + h.pid() + ", " + h.state()
                        + ") open since " + h.since() + " holds back vacuum: rows dead since then stay in the gate's "
                        + "tables, whoever vacuums, until it ends");
            }
            saidHeldBack = held;
        }
        if (!s.tables().seesAllSessions() && !saidBlind) {
            LOG.info("the gate's role sees only its own sessions: a long transaction of another role that holds back "
                    + "vacuum goes unnamed (grant pg_monitor or pg_read_all_stats to the gate's role to name it)");
            saidBlind = true;
        }
    }

    private static String bound(TableCare care) {
        return String.format(Locale.ROOT, "%,d", care.floor()) + " + " + Math.round(care.share() * 100)
                + "% of their live rows";
    }

    private static String mb(long bytes) {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
    }
}
