package dev.gate.store;

import dev.gate.dev.GateDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
        GateDatabase db = GateDatabase.fresh(DB);
        for (int i = 1; i <= 20; i++) {
            db.limit("vendor-" + i, 600, Duration.ofMinutes(1));
        }
        c = db.connect();
        try (Statement s = c.createStatement()) {
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
            // a keyed limit's 1,000 idle keys (as Keys.open writes them)
            db.limit("user-api", 10, Duration.ofSeconds(1), "keyed", true);
            s.execute("""
                    INSERT INTO gate_limit (name, template_name, limit_key, key_used_at, calls, window_ms)
                    SELECT 'user-api~k' || i, 'user-api', 'k' || i, now() - interval '1 hour', 10, 1000
                    FROM generate_series(1, 1000) i""");
            s.execute("ANALYZE");
        }
    }

    // The statements explained are the gate's own (Granter, Leases, Retention), bound as the gate binds them (the
    // grant's beat restarting: 300 ms before its send, a burst of four).

    @Test
    void theRunsHeadsComeFromThePartialLineIndex() throws SQLException {
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        long us = now.toInstant().toEpochMilli() * 1_000;
        String plan = explain(GrantRun.SQL, "vendor-7", now, now, now, 1, now,
                c.createArrayOf("bigint", new Long[] {us}), c.createArrayOf("bigint", new Long[] {us + 100_000}),
                c.createArrayOf("bigint", new Long[] {null}), c.createArrayOf("boolean", new Boolean[] {false}),
                4401L, 4401L, "vendor-7", "vendor-7");
        assertTrue(plan.contains("gate_call_line"), plan);
        // the index order is the line order: what is sorted is the run's own few rows, never the line
        assertFalse(plan.contains("Sort Key: w.") || plan.contains("Sort Key: gate_call."), plan);
        assertFalse(plan.contains("Seq Scan on gate_call"), plan);
    }

    @Test
    void withTheStarvationGuardEachClassHeadIsOneLookupInTheLineIndex() throws SQLException {
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        String plan = explain(ChosenHead.AGING, now, 60_000L, 0, 0, "vendor-7", now, now, now, now, 4401L,
                now, -300_000L, 4401L, "vendor-7");
        assertTrue(plan.contains("gate_call_line"), plan);
        assertFalse(plan.contains("Seq Scan on gate_call"), "five index lookups, whatever the line's length: " + plan);
    }

    @Test
    void withProgramsTakingTurnsEachProgramIsOneLookupInTheProgramIndex() throws SQLException {
        OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
        String plan = explain(ChosenHead.FAIR, "vendor-7", now, now, now, "vendor-7", "vendor-7", "vendor-7",
                now, now, now, "vendor-7", now, 4401L, now, -300_000L, 4401L, "vendor-7");
        assertTrue(plan.contains("gate_call_program_line"), plan);
        assertFalse(plan.contains("Seq Scan on gate_call"), "lookups per program, whatever the line's length: " + plan);
    }

    @Test
    void theWindowProbeIsAPointLookupBySendNumber() throws SQLException {
        // one rule besides the last send: the 600th most recent send, if it lies inside the 60 s window
        String plan = explain(SendProbe.sql(1), "vendor-7", 5000L, 4401L, "vendor-7", 4401L);
        assertTrue(plan.contains("gate_send_seq"), plan);
        assertFalse(plan.contains("Seq Scan"), plan);
    }

    @Test
    void aSendIsIndexedByItsLimitAndNumberAndByItsTimeOnly() throws SQLException {
        // what the window counts, the beat and retention read; a grant with a call row writes no other index entry
        // for its send (the third index holds only the sends of consumes without one)
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes WHERE tablename = 'gate_send'")) {
            rs.next();
            assertEquals("gate_send_consumed,gate_send_seq,gate_send_window", rs.getString(1));
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT indexdef FROM pg_indexes WHERE indexname = 'gate_send_consumed'")) {
            rs.next();
            assertTrue(rs.getString(1).endsWith("WHERE (owner IS NOT NULL)"), rs.getString(1));
        }
        // a consume without a call row is read back by its id from that index, never by scanning the log
        String read = explain(CallReads.SENT_ONLY, 4242L, "instance-1", "instance-1");
        assertTrue(read.contains("gate_send_consumed"), read);
        assertFalse(read.contains("Seq Scan on gate_send"), read);
        // a removed limit's sends go by row address (no index on the send's id to join the batch by)
        String plan = explain(LimitRemovals.DROP_SENDS, "vendor-7", "vendor-7", 500);
        assertTrue(plan.contains("Tid Scan on gate_send"), plan);
    }

    @Test
    void theSlotLockReadsItsProbeBySendNumber() throws SQLException {
        String plan = explain(SlotLock.SQL, "vendor-7");
        assertTrue(plan.contains("gate_send_seq"), plan);
        assertFalse(plan.contains("Seq Scan on gate_send"), plan);
    }

    @Test
    void theIdleKeySweepFindsItsRowsByIndex() throws SQLException {
        String idle = explain(IdleKeys.IDLE, 600_000L, 500);
        assertTrue(idle.contains("gate_limit_key_use"), "the longest unused keys, by index: " + idle);
        assertFalse(idle.contains("Seq Scan on gate_call"), idle);
        assertFalse(idle.contains("Seq Scan on gate_send"), idle);
        java.sql.Array keys = c.createArrayOf("varchar", new Object[] {"user-api~k1", "user-api~k2"});
        String history = explain(IdleKeys.KEY_HISTORY, keys, 500, 500);
        assertTrue(history.contains("Tid Scan on gate_call"), history);
        assertFalse(history.contains("Seq Scan on gate_call"), history);
        String remove = explain(IdleKeys.REMOVE, keys);
        assertFalse(remove.contains("Seq Scan on gate_call"), remove);
    }

    @Test
    void theLoopsReadFindsTheLimitsWithWaitingCallsByAnIndexOfWaitingCalls() throws SQLException {
        // the waiting calls come from a partial index over them (the line's, or the lease index), not the table
        String waiting = explain(WaitingLines.WITH_WAITING_CALLS);
        assertTrue(waiting.contains("gate_call_line") || waiting.contains("gate_call_lease"), waiting);
        assertFalse(waiting.contains("Seq Scan on gate_call"), waiting);
    }

    @Test
    void keysThatMissedTheirTemplatesChangeAreFoundByIndex() throws SQLException {
        // the housekeeping's look, at every prune, over all templates: one index lookup each, not its 1,000 keys read
        String missed = explain(StaleKeys.MISSED);
        assertTrue(missed.contains("gate_limit_templates"), missed);
        assertTrue(missed.contains("Index Only Scan using gate_limit_keys"), missed);
        assertFalse(missed.contains("Seq Scan on gate_limit"), missed);
    }

    @Test
    void retentionWalksEachLimitsOldRowsByIndex() throws SQLException {
        // found by index, deleted by row address: the cost follows the rows deleted, never the table's size
        String sends = explain(Retention.PRUNE_SENDS, Retention.SEND_MARGIN.toMillis(), 2000, 2000);
        assertTrue(sends.contains("gate_send_window"), sends);
        assertTrue(sends.contains("Tid Scan on gate_send"), sends);
        assertFalse(sends.contains("Seq Scan on gate_send"), sends);
        String calls = explain(Retention.PRUNE_CALLS, 990_000L, 2000, 2000);
        assertTrue(calls.contains("gate_call_finished"), calls);
        assertTrue(calls.contains("Tid Scan on gate_call"), calls);
        assertFalse(calls.contains("Seq Scan on gate_call"), calls);
    }

    @Test
    void theHeartbeatAndExpiryUseTheirIndexes() throws SQLException {
        Array ids = c.createArrayOf("bigint", new Long[] {50L, 100L, 150L});
        String renew = explain(Leases.RENEW_OWNED, "instance-1", ids);
        assertFalse(renew.contains("Seq Scan"), renew);
        // the sweeps: a batch from their partial indexes, bounded by the clock, never the table
        String expire = explain(Leases.EXPIRE_LAPSED, 1000);
        assertTrue(expire.contains("gate_call_lease"), expire);
        assertFalse(expire.contains("Seq Scan on gate_call"), expire);
        String late = explain(Leases.EXPIRE_PAST_DEADLINE, 1000);
        assertTrue(late.contains("gate_call_deadline"), late);
        assertFalse(late.contains("Seq Scan on gate_call"), late);
        String abandon = explain(Leases.ABANDON_LAPSED, 1000);
        assertTrue(abandon.contains("gate_call_granted_lease"), abandon);
        assertFalse(abandon.contains("Seq Scan on gate_call"), abandon);
    }

    private static String explain(String sql, Object... params) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
        }
        return plan.toString();
    }
}
