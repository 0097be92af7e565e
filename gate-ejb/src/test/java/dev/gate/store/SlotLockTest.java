package dev.gate.store;

import dev.gate.dev.GateDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The slot lock reads its first probe in the same statement. The slot row it locks is always the newest version, but
 * the sends it reads are of the statement's snapshot: when a grant commits between the two, its send is missing and
 * the probe must not be used (the pass probes again in a new snapshot), else the window cap would count one send
 * short. Here the race is made wide on purpose: the lock statement waits (no SKIP LOCKED) for a grant to commit.
 */
class SlotLockTest {

    @Test
    void aProbeThatMissedTheNewestSendIsNotUsed() throws Exception {
        GateDatabase db = GateDatabase.fresh("gate_slot_lock_test");
        db.limit("v", 2, Duration.ofMinutes(1));
        db.sql("INSERT INTO gate_send (limit_name, call_id, sent_at, seq) VALUES ('v', 1, now(), 1)");
        db.sql("UPDATE gate_slot SET send_seq = 1 WHERE limit_name = 'v'");

        try (Connection granter = db.connect(); Connection locker = db.connect()) {
            // with nothing in flight, the lock's own probe is complete and is used
            locker.setAutoCommit(false);
            SlotLock.Locked quiet = lock(locker, SlotLock.SQL);
            assertEquals(1, quiet.seq());
            assertNotNull(quiet.probe(), "a complete probe is used");
            assertTrue(quiet.probe().lastSent().isPresent());
            locker.rollback();

            // another grant holds the slot, logs send 2 and moves the slot, not yet committed
            granter.setAutoCommit(false);
            try (Statement s = granter.createStatement()) {
                s.execute("SELECT 1 FROM gate_slot WHERE limit_name = 'v' FOR UPDATE");
                s.execute("INSERT INTO gate_send (limit_name, call_id, sent_at, seq) VALUES ('v', 2, now(), 2)");
                s.execute("UPDATE gate_slot SET send_seq = 2 WHERE limit_name = 'v'");
            }
            String waiting = SlotLock.SQL.replace("SKIP LOCKED", "");
            assertFalse(waiting.equals(SlotLock.SQL));
            CompletableFuture<SlotLock.Locked> late = CompletableFuture.supplyAsync(() -> {
                try {
                    return lock(locker, waiting);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            // the locker's statement has its snapshot and waits for the row lock
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (db.count("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    + "AND datname = current_database()") == 0) {
                assertTrue(System.nanoTime() < until, "the lock statement never waited");
                Thread.sleep(10);
            }
            granter.commit();
            SlotLock.Locked stale = late.get(10, TimeUnit.SECONDS);
            assertEquals(2, stale.seq(), "the locked slot row is the newest version");
            assertNull(stale.probe(), "its snapshot missed send 2: the probe must be taken again");
            locker.rollback();
        }
    }

    private static SlotLock.Locked lock(Connection c, String sql) throws Exception {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, "v");
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                Optional<SlotLock.Locked> locked = SlotLock.locked(rs);
                assertTrue(locked.isPresent());
                return locked.get();
            }
        }
    }
}
