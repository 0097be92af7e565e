package dev.gate.store;

import dev.gate.dev.GateDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With 100k calls and 100k sends in the tables, "next call to grant" and "sends in the last window" are answered from
 * the indexes, not by scanning: the plans PostgreSQL chooses say so.
 */
class IndexPlanTest {

    private static final String DB = "gate_index_plan_test";
    private static Connection c;

    @BeforeAll
    static void loadOneHundredThousandRows() throws Exception {
        c = GateDatabase.fresh(DB).connect();
        try (Statement s = c.createStatement()) {
            s.execute("INSERT INTO gate_limit (name, calls, window_ms) SELECT 'vendor-' || i, 600, 60000 "
                    + "FROM generate_series(1, 20) i");
            // 100k calls over 20 limits, most of them long done, 2k still waiting
            s.execute("""
                    INSERT INTO gate_call (limit_name, call_class, program, owner, state, enqueued_at, lease_ms,
                                           lease_expires_at)
                    SELECT 'vendor-' || (1 + i % 20), i % 5, 'worker', 'instance-' || (i % 3),
                           CASE WHEN i % 50 = 0 THEN 'WAITING' ELSE 'DONE' END,
                           now() - (100000 - i) * interval '10 ms', 30000, now() + interval '30 s'
                    FROM generate_series(1, 100000) i""");
            s.execute("""
                    INSERT INTO gate_send (limit_name, call_id, sent_at, seq)
                    SELECT 'vendor-' || (1 + i % 20), i, now() - (100000 - i) * interval '100 ms', 1 + i / 20
                    FROM generate_series(1, 100000) i""");
            s.execute("""
                    UPDATE gate_slot t SET send_seq = (SELECT max(seq) FROM gate_send s WHERE s.limit_name = t.limit_name)""");
            s.execute("""
                    UPDATE gate_call SET done_at = enqueued_at + interval '1 s' WHERE state = 'DONE'""");
            s.execute("ANALYZE");
        }
    }

    @Test
    void theHeadOfTheLineComesFromThePartialLineIndex() throws SQLException {
        String plan = explain("""
                SELECT id FROM gate_call
                WHERE limit_name = 'vendor-7' AND state = 'WAITING' AND lease_expires_at > now()
                ORDER BY call_class, enqueued_at, id LIMIT 1 FOR UPDATE""");
        assertTrue(plan.contains("gate_call_line"), plan);
        assertFalse(plan.contains("Sort"), "the index order is the line order: " + plan);
    }

    @Test
    void theWindowProbeIsAPointLookupBySendNumber() throws SQLException {
        String plan = explain("""
                SELECT sent_at FROM gate_send
                WHERE limit_name = 'vendor-7' AND seq = 4400 AND sent_at > now() - interval '60 s'""");
        assertTrue(plan.contains("gate_send_seq"), plan);
        assertFalse(plan.contains("Seq Scan"), plan);
    }

    @Test
    void retentionWalksEachLimitsOldRowsByIndex() throws SQLException {
        String sends = explain("""
                SELECT s.id FROM gate_send s
                WHERE s.limit_name = 'vendor-7' AND s.sent_at < now() - interval '9900 s'
                ORDER BY s.sent_at LIMIT 2000""");
        assertTrue(sends.contains("gate_send_window"), sends);
        assertFalse(sends.contains("Seq Scan"), sends);
        String calls = explain("""
                SELECT c.id FROM gate_call c
                WHERE c.limit_name = 'vendor-7' AND c.state NOT IN ('WAITING', 'GRANTED')
                  AND c.done_at < now() - interval '990 s'
                ORDER BY c.done_at LIMIT 2000""");
        assertTrue(calls.contains("gate_call_finished"), calls);
        assertFalse(calls.contains("Seq Scan"), calls);
    }

    @Test
    void theHeartbeatRenewsThroughTheOwnerIndex() throws SQLException {
        String plan = explain("""
                UPDATE gate_call SET lease_expires_at = now() + interval '30 s'
                WHERE owner = 'instance-1' AND state = 'WAITING' AND id = ANY ('{50,100,150}')""");
        assertFalse(plan.contains("Seq Scan"), plan);
    }

    private static String explain(String sql) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN " + sql)) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }
}
