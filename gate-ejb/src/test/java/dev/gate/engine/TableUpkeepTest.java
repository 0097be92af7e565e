package dev.gate.engine;

import dev.gate.domain.Tables;

import dev.gate.api.CallClass;
import dev.gate.rules.TableCare;
import dev.gate.store.GateTables;
import dev.gate.store.Tx;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.logging.Level;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gate keeps its tables small where autovacuum does not: it vacuums a table whose dead rows pass the bound, or,
 * switched off, warns that nothing will; a vacuum that cannot get its lock skips and nothing waits on it; a long
 * transaction that holds vacuum back is named. Autovacuum is switched off for gate_call here (whatever the server's
 * setting), so the test means the same on a server with autovacuum on or off.
 */
class TableUpkeepTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @RegisterExtension
    final LogCapture log = new LogCapture(TableUpkeep.class);

    @Test
    void aTableAutovacuumDoesNotLookAfterIsVacuumedByTheGateOnceItsDeadRowsPassTheBound() throws Exception {
        Engine gate = copies.start("keeper");
        churn(20_000);
        TableUpkeep.Status s = gate.tables().check().orElseThrow();
        assertTrue(s.autovacuumOff().contains("gate_call"), s.autovacuumOff().toString());
        TableUpkeep.Vacuum v = s.lastVacuum().orElseThrow();
        assertEquals("gate_call", v.table());
        assertEquals(Tables.Vacuumed.DONE, v.result());
        assertTrue(v.deadRowsBefore() >= 20_000, "the statistics counted the dead rows: " + v.deadRowsBefore());
        // the statistics hear of the vacuum a moment later on PostgreSQL 14 (its statistics collector)
        GateCopies.await("the statistics to count the dead rows gone", Duration.ofSeconds(10),
                () -> deadRows() < 1_000);
        assertTrue(said(Level.INFO, "vacuumed gate_call"), "the operators' log says so");
        assertTrue(said(Level.INFO, "autovacuum is off for"), "and that autovacuum does not look after it");

        // the migration's storage parameters: by rows, and room on the slot's pages for its HOT updates
        assertEquals(1, copies.count("SELECT count(*) FROM pg_class WHERE relname = 'gate_call' "
                + "AND 'autovacuum_vacuum_threshold=1000' = ANY (reloptions)"));
        assertEquals(1, copies.count("SELECT count(*) FROM pg_class WHERE relname = 'gate_slot' "
                + "AND 'fillfactor=50' = ANY (reloptions)"));
    }

    @Test
    void aSendLogThatOnlyGrewIsAnalyzedByTheGateAndAPoolSessionsPlanOfItsNewestSendUsesItsKeyAgain() throws Exception {
        Engine gate = copies.start("analyzer");
        copies.sql("ALTER TABLE gate_send SET (autovacuum_enabled = false)");
        copies.limit("grown", 1_000_000, Duration.ofSeconds(1));
        copies.sql("VACUUM gate_send"); // its statistics say empty, as on a new install
        try (Connection session = copies.connect(); Statement st = session.createStatement()) {
            // a session of the pool keeps the plans it made, as gate_try_group's generically planned queries are kept
            st.execute("SET plan_cache_mode = force_generic_plan");
            st.execute("PREPARE newest (varchar, bigint) AS "
                    + "SELECT g.sent_at FROM gate_send g WHERE g.limit_name = $1 AND g.seq = $2");
            assertTrue(plan(st).contains("Seq Scan"), "made on an empty log, the plan reads the whole log: "
                    + plan(st));
            // the log grows (sends are only inserted until retention's deletions): no dead row, no vacuum due
            copies.sql("INSERT INTO gate_send (limit_name, call_id, sent_at, seq) "
                    + "SELECT 'grown', i, now() - interval '1 second' * (20000 - i), i FROM generate_series(1, 20000) i");
            GateCopies.await("the statistics to count the sends", Duration.ofSeconds(10),
                    () -> stat("n_mod_since_analyze") >= 20_000);
            assertTrue(plan(st).contains("Seq Scan"), "the session keeps its plan while nothing analyzes the log");

            gate.tables().check();
            assertTrue(plan(st).contains("Index Scan using gate_send_seq"),
                    "the analyze renewed the session's plan: the newest send is found by its key: " + plan(st));
        }
        GateCopies.await("the statistics to hear of the analyze", Duration.ofSeconds(10),
                () -> stat("n_mod_since_analyze") == 0);
        assertTrue(said(Level.INFO, "and analyzes them once their rows changed"),
                "the operators' log says once that the gate analyzes where autovacuum does not");
    }

    private static String plan(Statement st) throws java.sql.SQLException {
        StringBuilder plan = new StringBuilder();
        try (var rs = st.executeQuery("EXPLAIN EXECUTE newest ('grown', 20000)")) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }

    private long stat(String column) {
        try {
            return copies.count("SELECT " + column + " FROM pg_stat_user_tables WHERE relname = 'gate_send'");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void switchedOffItWarnsAndLeavesTheTableAlone() throws Exception {
        Engine gate = copies.start("warner", GateCopies.FAST.withTableCare(TableCare.DEFAULTS, false),
                new ScheduledThreadPoolExecutor(2));
        churn(20_000);
        TableUpkeep.Status s = gate.tables().check().orElseThrow();
        assertTrue(s.lastVacuum().isEmpty(), "no vacuum of the gate's");
        assertEquals(List.of("gate_call"), s.leftToGrow());
        assertTrue(deadRows() >= 20_000, "the dead rows stay: " + deadRows());
        assertTrue(said(Level.WARNING, "GATE_SELF_VACUUM=off: nothing removes their dead rows"),
                "the operators' log warns");
    }

    @Test
    void aVacuumThatCannotGetItsLockSkipsAndNoGrantWaitsOnIt() throws Exception {
        Engine gate = copies.start("skipper");
        copies.limit("open", 1000, Duration.ofSeconds(1));
        churn(20_000);
        try (Connection holder = copies.connect(); Statement st = holder.createStatement()) {
            holder.setAutoCommit(false);
            st.execute("LOCK TABLE gate_call IN SHARE UPDATE EXCLUSIVE MODE"); // what another vacuum holds
            TableUpkeep.Vacuum v = gate.tables().check().orElseThrow().lastVacuum().orElseThrow();
            assertEquals(Tables.Vacuumed.SKIPPED_LOCKED, v.result());
            // the line goes on meanwhile: the lock a vacuum takes is not one a grant needs
            var permit = gate.callers().acquire("open", CallClass.INTERACTIVE, Duration.ofSeconds(5), "web",
                    Duration.ofSeconds(30));
            gate.callers().complete(permit.callId(), 200);
            holder.rollback();
        }
        assertEquals(Tables.Vacuumed.DONE, gate.tables().check().orElseThrow().lastVacuum().orElseThrow()
                .result(), "the next check vacuums it");
    }

    @Test
    void aVacuumCancelledByItsTimeoutIsNoOutageAndLeavesItsConnectionToTheLine() throws Exception {
        Engine gate = copies.start("timer");
        churn(100_000);
        try (HikariDataSource one = copies.pool(1)) {
            assertEquals(Tables.Vacuumed.TIMED_OUT, new GateTables(one).vacuum("gate_call", Duration.ofMillis(1)));
            // the pool's one connection serves the next transaction with the gate's own timeouts again
            assertEquals("500ms", new Tx(one).run(c -> {
                try (Statement st = c.createStatement(); var rs = st.executeQuery("SHOW statement_timeout")) {
                    rs.next();
                    return rs.getString(1);
                }
            }));
        }
        assertFalse(gate.paused(), "a vacuum's timeout pauses nothing");
    }

    @Test
    void aLongTransactionThatHoldsVacuumBackIsNamed() throws Exception {
        Engine gate = copies.start("namer", GateCopies.FAST.withTableCare(
                new TableCare(1_000, 0.1, Duration.ofMinutes(1), Duration.ofSeconds(1)), true),
                new ScheduledThreadPoolExecutor(2));
        try (Connection report = copies.connect(); Statement st = report.createStatement()) {
            st.execute("SET application_name = 'nightly-report'");
            report.setAutoCommit(false);
            st.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            st.execute("SELECT count(*) FROM gate_limit"); // its snapshot is held until it ends
            // past the span (1 s here): the engine's own transactions, a few ms each, never are
            GateCopies.await("the transaction to be older than the span", Duration.ofSeconds(10),
                    () -> heldBackBy(gate).equals("nightly-report"));
            assertTrue(said(Level.WARNING, "a transaction of 'nightly-report'"), "the operators' log names it");
            report.rollback();
        }
        assertEquals("", heldBackBy(gate));
        assertTrue(said(Level.INFO, "no longer held back"));
    }

    private static String heldBackBy(Engine gate) {
        try {
            return gate.tables().check().orElseThrow().heldBack().map(Tables.Holder::who).orElse("");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code n} finished calls written and deleted, as a day of calls and retention leave them: dead rows. */
    private void churn(int n) throws Exception {
        copies.sql("ALTER TABLE gate_call SET (autovacuum_enabled = false)");
        copies.limit("churn", 10, Duration.ofSeconds(1));
        copies.sql("""
                INSERT INTO gate_call (limit_name, call_class, program, owner, state, enqueued_at, granted_at,
                                       done_at, lease_ms, lease_expires_at)
                SELECT 'churn', 2, 'p', 'program:p', 'DONE', now(), now(), now(), 30000, now()
                FROM generate_series(1, ?) i""", n);
        copies.sql("DELETE FROM gate_call WHERE limit_name = 'churn'");
        // the statistics reach the views a moment after the deleting session's commit
        GateCopies.await("the statistics to count the dead rows", Duration.ofSeconds(10), () -> deadRows() >= n);
    }

    private long deadRows() {
        try {
            return copies.count("SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'gate_call'");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private boolean said(Level level, String text) {
        return log.saidAny(level, text);
    }
}
