package dev.gate.store;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.db.Migrations;
import dev.gate.dev.GateDatabase;
import dev.gate.dev.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A plain success's outcome rewrites its call row in place (a HOT update: no index entry written), and every reader
 * reads the call DONE at once; the housekeeper's sweep settles it at its lease's end without calling it abandoned; a
 * dedupe key is free at its call's outcome. Migration 039 on a populated table keeps every row as it was.
 */
class OutcomeInPlaceTest {

    private static final Outcomes.Whose WORKER = new Outcomes.Whose("instance-1", "worker");

    private static GateDatabase db;
    private static HikariDataSource pool;
    private static Tx tx;

    @BeforeAll
    static void database() throws SQLException {
        db = GateDatabase.fresh("gate_outcome_in_place_test");
        for (String limit : List.of("in-place", "sweep", "dedupe")) {
            db.limit(limit, 600, Duration.ofMinutes(1));
        }
        pool = db.pool(2);
        tx = new Tx(pool);
    }

    @AfterAll
    static void close() {
        pool.close();
    }

    @Test
    void aPlainSuccessRewritesItsRowInPlaceAndReadsDoneAtOnce() throws Exception {
        long id = granted("in-place", null, "30 s");
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement(Outcomes.PLAIN_DONE)) {
                ps.setLong(1, id);
                int next = WORKER.bind(ps, 2);
                ps.setInt(next, 200);
                ps.setNull(next + 1, java.sql.Types.INTEGER);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next(), "the plain outcome's statement took the call");
                }
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                    SELECT pg_stat_get_xact_tuples_updated('gate_call'::regclass),
                           pg_stat_get_xact_tuples_hot_updated('gate_call'::regclass)""")) {
                rs.next();
                assertEquals(1, rs.getLong(1), "one row updated");
                assertEquals(1, rs.getLong(2), "and that update was HOT: no index entry written");
            }
            c.commit();
        }
        Row row = row(id);
        assertEquals("DONE", row.state);
        assertEquals(200, row.outcome);
        assertNotNull(row.doneAt);
        assertTrue(row.inFlight, "kept in the granted calls' index until its lease's end");
        assertNull(row.endedAt);
        // sent again: the same outcome, recorded once
        assertEquals(Outcomes.Result.REPEATED, new Outcomes(tx).record(id, WORKER, 200, null));
    }

    @Test
    void theSweepSettlesADoneCallAtItsLeasesEndAndAbandonsOnlyTheOneWithoutAnOutcome() throws Exception {
        long done = granted("sweep", null, "-1 s");
        long lost = granted("sweep", null, "-1 s");
        assertEquals(Outcomes.Result.RECORDED, new Outcomes(tx).record(done, WORKER, 200, null));
        Row before = row(done);
        assertTrue(before.inFlight);

        Leases.LapsedGrants swept = new Leases(tx).endLapsedGrants(100);

        assertEquals(List.of(lost), swept.abandoned().stream().map(Leases.Cleared::callId).toList(),
                "only the call without an outcome is abandoned");
        assertTrue(swept.swept() >= 2, "both rows swept: " + swept.swept());
        Row settled = row(done);
        assertEquals("DONE", settled.state);
        assertEquals(200, settled.outcome);
        assertEquals(before.doneAt, settled.doneAt, "its outcome's time kept");
        assertFalse(settled.inFlight, "it left the granted calls' index");
        assertEquals(settled.doneAt, settled.endedAt, "retention's index has it by its outcome's time");
        assertEquals("ABANDONED", row(lost).state);
        assertEquals(0, new Leases(tx).endLapsedGrants(100).swept(), "each is swept once");
        assertEquals(Outcomes.Result.REPEATED, new Outcomes(tx).record(done, WORKER, 200, null));
    }

    @Test
    void aDedupeKeyIsFreeOnceItsCallIsDone() throws Exception {
        long id = granted("dedupe", "order-1", "30 s");
        SQLException taken = assertThrows(SQLException.class, () -> waiting("dedupe", "order-1"));
        assertEquals("23505", taken.getSQLState(), "a granted call holds its dedupe key");
        assertEquals(Outcomes.Result.RECORDED, new Outcomes(tx).record(id, WORKER, 200, null));
        waiting("dedupe", "order-1"); // a new call with the key, once the first is done
    }

    @Test
    @SuppressWarnings("deprecation") // Liquibase's count-limited update, as SchemaTest
    void theMigrationKeepsAPopulatedTableAsItWas() throws Exception {
        TestDatabase server = TestDatabase.server();
        server.freshDatabase("gate_outcome_migration_test");
        try (Connection c = server.connect("gate_outcome_migration_test")) {
            liquibase.Liquibase lb = new liquibase.Liquibase(Migrations.CHANGELOG,
                    new liquibase.resource.ClassLoaderResourceAccessor(Migrations.class.getClassLoader()),
                    liquibase.database.DatabaseFactory.getInstance().findCorrectDatabaseImplementation(
                            new liquibase.database.jvm.JdbcConnection(c)));
            List<String> ids = lb.listUnrunChangeSets(new liquibase.Contexts(), new liquibase.LabelExpression())
                    .stream().map(liquibase.changelog.ChangeSet::getId).toList();
            int before = ids.indexOf("039-outcome-in-place");
            lb.update(before, new liquibase.Contexts(), new liquibase.LabelExpression());
            c.setAutoCommit(true);
            String digest = """
                    SELECT count(*), md5(string_agg(concat_ws('|', id, limit_name, call_class, program, owner, state,
                           enqueued_at, lease_ms, lease_expires_at, granted_at, done_at, outcome_status,
                           outcome_retry_after_s, deadline_at, concurrency_key, dedupe_key, submission_key, aged, cost),
                           ',' ORDER BY id)) FROM gate_call""";
            try (Statement s = c.createStatement()) {
                s.execute("INSERT INTO gate_limit (name, calls, window_ms) VALUES ('old', 600, 60000)");
                // 20k calls in every state, some with keys, outcomes and deadlines
                s.execute("""
                        INSERT INTO gate_call (limit_name, call_class, program, owner, state, enqueued_at, lease_ms,
                                               lease_expires_at, granted_at, done_at, outcome_status, deadline_at,
                                               concurrency_key, dedupe_key, submission_key, cost)
                        SELECT 'old', i % 5, 'p' || i % 3, 'o' || i % 4,
                               (ARRAY['WAITING', 'GRANTED', 'DONE', 'CANCELLED', 'EXPIRED', 'ABANDONED'])[1 + i % 6],
                               now() - i * interval '1 ms', 30000, now() + interval '30 s',
                               CASE WHEN i % 6 IN (1, 2, 5) THEN now() END,
                               CASE WHEN i % 6 >= 2 THEN now() - i * interval '1 ms' END,
                               CASE WHEN i % 6 = 2 THEN 200 + i % 300 END,
                               CASE WHEN i % 7 = 0 THEN now() + interval '1 hour' END,
                               CASE WHEN i % 11 = 0 THEN 'k' || i % 13 END,
                               CASE WHEN i % 17 = 0 THEN 'd' || i END,
                               CASE WHEN i % 19 = 0 THEN 's' || i END, 1 + i % 2
                        FROM generate_series(1, 20000) i""");
            }
            String was = digest(c, digest);

            assertEquals(ids.size() - before, Migrations.apply(c));

            assertEquals(was, digest(c, digest), "every row and column as it was");
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                    SELECT count(*) FILTER (WHERE waiting IS DISTINCT FROM (state = 'WAITING')),
                           count(*) FILTER (WHERE in_flight IS DISTINCT FROM (state = 'GRANTED')),
                           count(*) FILTER (WHERE open_dedupe IS DISTINCT FROM
                                            CASE WHEN state IN ('WAITING', 'GRANTED') THEN dedupe_key END),
                           count(*) FILTER (WHERE ended_at IS DISTINCT FROM
                                            CASE WHEN state NOT IN ('WAITING', 'GRANTED') THEN done_at END),
                           count(*) FILTER (WHERE unsettled),
                           (SELECT reloptions::text FROM pg_class WHERE relname = 'gate_call')
                    FROM gate_call""")) {
                rs.next();
                for (int i = 1; i <= 5; i++) {
                    assertEquals(0, rs.getLong(i), "derived column " + i + " as its definition says");
                }
                assertTrue(rs.getString(6).contains("fillfactor=80"), rs.getString(6));
            }
        }
    }

    private static String digest(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1) + " " + rs.getString(2);
        }
    }

    private record Row(String state, Integer outcome, java.sql.Timestamp doneAt, boolean inFlight,
                       java.sql.Timestamp endedAt) {
    }

    private static Row row(long id) throws SQLException {
        try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement(
                "SELECT state, outcome_status, done_at, in_flight, ended_at FROM gate_call WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return new Row(rs.getString(1), (Integer) rs.getObject(2), rs.getTimestamp(3), rs.getBoolean(4),
                        rs.getTimestamp(5));
            }
        }
    }

    /** A granted call of instance-1's worker, its lease ending {@code leaseEnds} from now. */
    private static long granted(String limit, String dedupeKey, String leaseEnds) throws SQLException {
        return insert(limit, dedupeKey, "GRANTED", leaseEnds);
    }

    private static long waiting(String limit, String dedupeKey) throws SQLException {
        return insert(limit, dedupeKey, "WAITING", "30 s");
    }

    private static long insert(String limit, String dedupeKey, String state, String leaseEnds) throws SQLException {
        try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement("""
                INSERT INTO gate_call (limit_name, call_class, program, owner, state, lease_ms, lease_expires_at,
                                       granted_at, dedupe_key)
                VALUES (?, 2, 'worker', 'instance-1', ?, 30000, now() + ?::interval,
                        CASE WHEN ? = 'GRANTED' THEN now() END, ?)
                RETURNING id""")) {
            ps.setString(1, limit);
            ps.setString(2, state);
            ps.setString(3, leaseEnds);
            ps.setString(4, state);
            ps.setString(5, dedupeKey);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
