package dev.gate.store;

import dev.gate.domain.Grant;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.dev.GateDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A grant pass grants every call due now in one statement (a run), announced in one notification: 50 due calls, a
 * window of 50, one pass. A run is all or nothing: a statement that fails, or a process killed in the middle of one,
 * grants nobody and leaves the line, the send log and the beat as they were.
 */
class GrantRunTest {

    private static GateDatabase db;
    private static HikariDataSource pool;
    private static Granter granter;

    @BeforeAll
    static void database() {
        db = GateDatabase.fresh("gate_grant_run_test");
        pool = db.pool(4);
        granter = new Granter(new Tx(pool));
    }

    @AfterAll
    static void close() {
        pool.close();
    }

    @Test
    void fiftyDueCallsAreGrantedInOnePassInOneNotificationAndTheWindowHolds() throws Exception {
        String limit = "run-50";
        List<Long> scheduled = line(limit, 50, 10); // 50 SCHEDULED, then 10 INTERACTIVE
        List<Long> interactive = scheduled.subList(50, 60);
        try (Connection listener = db.connect()) {
            try (Statement s = listener.createStatement()) {
                s.execute("LISTEN " + Granter.CHANNEL);
            }
            GrantPass pass = granter.grantDue(limit);

            assertEquals(50, pass.grants().size(), "every call the burst and the window allow, in one pass");
            List<Long> expected = new ArrayList<>(interactive); // the higher class first, then by arrival
            expected.addAll(scheduled.subList(0, 40));
            assertEquals(expected, pass.grants().stream().map(Grant::callId).toList(), "in the line's order");
            assertEquals(10, db.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND state = 'WAITING'"
                    + " AND id >= ?", limit, scheduled.get(40)), "the last ten arrivals still wait");

            // the send log: 50 sends, numbered 1 to 50, none before its slot, and the window holds 50
            assertEquals(50, db.count("SELECT count(DISTINCT seq) FROM gate_send WHERE limit_name = ? "
                    + "AND seq BETWEEN 1 AND 50 AND slot_at <= sent_at", limit));
            assertEquals(50, db.count("SELECT send_seq FROM gate_slot WHERE limit_name = ?", limit));
            assertEquals(0, db.count("""
                    SELECT count(*) FROM gate_send a
                    WHERE a.limit_name = ? AND (SELECT count(*) FROM gate_send b WHERE b.limit_name = a.limit_name
                           AND b.sent_at > a.sent_at - interval '1 second' AND b.sent_at <= a.sent_at) > 50""", limit));

            // one notification carries every id
            List<String> heard = notifications(listener, 1);
            assertEquals(1, heard.size(), "one notification for the run: " + heard);
            Set<Long> ids = new HashSet<>();
            Arrays.stream(heard.get(0).split(",")).map(Long::parseLong).forEach(ids::add);
            assertEquals(new HashSet<>(expected), ids);

            // the window is full: the next pass grants nothing, and says when the window has room again
            GrantPass next = granter.grantDue(limit);
            assertEquals(0, next.grants().size());
            assertTrue(!next.nextDueAt().orElseThrow().isBefore(pass.grants().get(0).grantedAt().plusSeconds(1)),
                    "the window's room comes a second after the run's sends, not before");
        }
    }

    @Test
    void aRunGrantsOneCallOfAConcurrencyKeyAndTheOthersOfTheKeyKeepTheirPlaces() throws Exception {
        String limit = "run-keys";
        List<Long> ids = line(limit, 5, 0);
        db.sql("UPDATE gate_call SET concurrency_key = 'account-7' WHERE id IN (?, ?, ?)", ids.get(0), ids.get(1),
                ids.get(3));
        GrantPass pass = granter.grantDue(limit);
        // one call may hold the key at a time: the first of it goes, the two calls without it go around the others
        assertEquals(List.of(ids.get(0), ids.get(2), ids.get(4)), pass.grants().stream().map(Grant::callId).toList());
        assertEquals(2, db.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND state = 'WAITING' "
                + "AND concurrency_key = 'account-7'", limit));
        // once the key's holder is done, the next of the key goes
        db.sql("UPDATE gate_call SET state = 'DONE', done_at = clock_timestamp() WHERE id = ?", ids.get(0));
        assertEquals(List.of(ids.get(1)), granter.grantDue(limit).grants().stream().map(Grant::callId).toList());
    }

    @Test
    void aRunThatFailsGrantsNobody() throws Exception {
        String limit = "run-fails";
        line(limit, 50, 0);
        atThirtiethSend("run_fails", limit, "RAISE EXCEPTION 'the 30th send fails'");
        try (Connection listener = db.connect()) {
            try (Statement s = listener.createStatement()) {
                s.execute("LISTEN " + Granter.CHANNEL);
            }
            assertThrows(IllegalStateException.class, () -> granter.grantDue(limit));
            assertNothingGranted(limit);
            assertEquals(List.of(), notifications(listener, 0), "nobody heard of a grant");
        } finally {
            db.sql("DROP TRIGGER run_fails ON gate_send");
        }
        assertEquals(50, granter.grantDue(limit).grants().size(), "the same run, once the fault is gone");
    }

    @Test
    void aProcessKilledInTheMiddleOfARunGrantsNobody() throws Exception {
        String limit = "run-killed";
        line(limit, 50, 0);
        atThirtiethSend("run_stalls", limit, "PERFORM pg_sleep(60)");
        try (Connection granting = db.connect(); Connection other = db.connect()) {
            int pid = ((PGConnection) granting).getBackendPID();
            granting.setAutoCommit(false);
            CompletableFuture<GrantPass> run = CompletableFuture.supplyAsync(() -> {
                try {
                    return Granter.grantDue(granting, limit);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            // the run has written 29 sends and is in the middle of the 30th: the process dies
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (db.count("SELECT count(*) FROM pg_stat_activity WHERE pid = ? AND wait_event = 'PgSleep'",
                    pid) == 0) {
                assertTrue(System.nanoTime() < until, "the run never reached its 30th send");
                Thread.sleep(5);
            }
            try (Statement s = other.createStatement()) {
                s.execute("SELECT pg_terminate_backend(" + pid + ")");
            }
            assertThrows(Exception.class, () -> run.get(20, TimeUnit.SECONDS));
            assertNothingGranted(limit);
        } finally {
            db.sql("DROP TRIGGER run_stalls ON gate_send");
        }
        assertEquals(50, granter.grantDue(limit).grants().size(), "the line is intact for the next pass");
    }

    /**
     * A limit of 50 a second with a burst of 50, its beat long due, and {@code scheduled} SCHEDULED calls then
     * {@code interactive} INTERACTIVE ones waiting; their ids in arrival order.
     */
    private static List<Long> line(String limit, int scheduled, int interactive) throws SQLException {
        db.limit(limit, 50, Duration.ofSeconds(1), "burst", 50);
        db.sql("UPDATE gate_slot SET next_slot_at = clock_timestamp() - interval '1 hour' WHERE limit_name = ?",
                limit);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < scheduled + interactive; i++) {
            ids.addAll(db.ids("""
                    INSERT INTO gate_call (limit_name, call_class, program, owner, state, lease_ms, lease_expires_at)
                    VALUES (?, ?, 'test', 'program:test', 'WAITING', 60000, clock_timestamp() + interval '60 s')
                    RETURNING id""", limit, i < scheduled ? 2 : 0));
        }
        return ids;
    }

    /** A trigger {@code name} on the send log: {@code action} (PL/pgSQL) as {@code limit}'s 30th send is written. */
    private static void atThirtiethSend(String name, String limit, String action) throws SQLException {
        db.sql("CREATE FUNCTION " + name + "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.limit_name = '"
                + limit + "' AND NEW.seq = 30 THEN " + action + "; END IF; RETURN NEW; END $$");
        db.sql("CREATE TRIGGER " + name + " BEFORE INSERT ON gate_send FOR EACH ROW EXECUTE FUNCTION " + name + "()");
    }

    private static void assertNothingGranted(String limit) throws SQLException {
        assertEquals(0, db.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND state <> 'WAITING'", limit));
        assertEquals(0, db.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit));
        assertEquals(0, db.count("SELECT send_seq FROM gate_slot WHERE limit_name = ?", limit));
        assertEquals(1, db.count("SELECT count(*) FROM gate_slot WHERE limit_name = ? "
                + "AND next_slot_at < clock_timestamp() - interval '59 minutes'", limit), "the beat did not move");
    }

    /** The notifications heard on {@code c}, waiting up to a second for {@code atLeast} of them. */
    private static List<String> notifications(Connection c, int atLeast) throws SQLException {
        List<String> heard = new ArrayList<>();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        do {
            PGNotification[] n = c.unwrap(PGConnection.class).getNotifications(100);
            if (n != null) {
                Arrays.stream(n).map(PGNotification::getParameter).forEach(heard::add);
            }
        } while (heard.size() < Math.max(atLeast, 1) && System.nanoTime() < until);
        return heard;
    }
}
