package dev.gate.engine;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.api.CallClass;
import dev.gate.store.CallKeys;
import dev.gate.store.GrantPass;
import dev.gate.store.Granter;
import dev.gate.store.Joins;
import dev.gate.store.Tx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One lock order everywhere (slot row, then call rows): a dedupe joiner and a due grant racing on the same head call
 * never deadlock, and neither is ever told the database is busy or gone.
 */
class DedupeRaceTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();
    private HikariDataSource pool;

    @BeforeEach
    void database() throws Exception {
        pool = copies.pool(4);
        copies.closeAfter(pool);
    }

    @Test
    void aJoinerAndAGrantRacingOnTheHeadCallTwoHundredTimesNeverDeadlock() throws Exception {
        String limit = "raced";
        copies.limit(limit, 1000000, Duration.ofSeconds(1));
        Tx tx = new Tx(pool);
        Joins joins = new Joins(tx);
        Granter granter = new Granter(tx);
        ExecutorService two = Executors.newFixedThreadPool(2);
        int joinedBeforeGrant = 0;
        int grantedFirst = 0;
        try (Connection admin = copies.connect()) {
            for (int i = 0; i < 200; i++) {
                String key = "snapshot-" + i;
                sql(admin, "UPDATE gate_slot SET next_slot_at = clock_timestamp() + interval '1 hour' "
                        + "WHERE limit_name = ?", limit);
                long head = joins.join(limit, CallClass.SCHEDULED, "first", "program:first", Duration.ofSeconds(30),
                        null, CallKeys.of(null, key), id -> { }).orElseThrow().id();
                sql(admin, "UPDATE gate_slot SET next_slot_at = clock_timestamp() WHERE limit_name = ?", limit);
                CyclicBarrier start = new CyclicBarrier(2);
                Future<GrantPass> grant = two.submit(() -> {
                    start.await();
                    return granter.grantDue(limit);
                });
                Future<Joins.Joined> joiner = two.submit(() -> {
                    start.await();
                    return joins.join(limit, CallClass.SCHEDULED, "second", "program:second",
                            Duration.ofSeconds(30), null, CallKeys.of(null, key), id -> { }).orElseThrow();
                });
                Joins.Joined joined = joiner.get(5, TimeUnit.SECONDS); // a deadlock or a busy lock would throw here
                GrantPass pass = grant.get(5, TimeUnit.SECONDS);
                assertTrue(joined.joinedExisting(), "round " + i + ": the second submission joins the live call");
                assertEquals(head, joined.id(), "round " + i);
                if (pass.skipped()) {
                    pass = granter.grantDue(limit); // the joiner never holds the slot row: only another grant could
                }
                assertEquals(1, pass.grants().size(), "round " + i + ": the head call is granted once");
                assertEquals(1, count(admin, "SELECT count(*) FROM gate_call_joiner WHERE call_id = ?", head),
                        "round " + i);
                sql(admin, "UPDATE gate_call SET state = 'DONE', done_at = clock_timestamp() WHERE id = ?", head);
                if (count(admin, "SELECT count(*) FROM gate_call_joiner j JOIN gate_call c ON c.id = j.call_id "
                        + "WHERE c.id = ? AND j.joined_at < c.granted_at", head) == 1) {
                    joinedBeforeGrant++;
                } else {
                    grantedFirst++;
                }
            }
        } finally {
            two.shutdownNow();
        }
        System.out.printf("dedupe race: 200 rounds, joiner first %d, grant first %d, no deadlock%n",
                joinedBeforeGrant, grantedFirst);
        assertEquals(200, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit));
        assertEquals(200, copies.count("SELECT saved_sends FROM gate_saved WHERE limit_name = ?", limit));
    }

    private static void sql(Connection c, String sql, Object arg) throws Exception {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setObject(1, arg);
            ps.execute();
        }
    }

    private static long count(Connection c, String sql, Object arg) throws Exception {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setObject(1, arg);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
