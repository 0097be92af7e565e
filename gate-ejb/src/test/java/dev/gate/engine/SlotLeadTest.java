package dev.gate.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The slot loop wakes {@link GrantLoop#LEAD} before a slot and waits, holding no lock, until the slot is due by the
 * database's clock, then locks and grants: with the real clock, every send is recorded at or after its slot, never
 * before it (the wait is measured from the read's clock, so the early wake never makes an early send); and the
 * limit's row is free while the loop waits, for other instances' passes and callers' tries (a watcher asking for the
 * row's lock without waiting finds it held only while a grant is written: with the wait under the lock, as before,
 * it found it held about LEAD of every 50 ms gap, some 40% of its asks).
 * How late the sends are prints (a figure, not asserted: a busy box makes any send late).
 */
class SlotLeadTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @Test
    void sendsWokenEarlyGoAtTheirSlotNeverBefore() throws Exception {
        String limit = "lead";
        int slots = 60;
        Engine gate = copies.start("lead-copy");
        // 20 a second (a 50 ms gap, longer than the lead)
        copies.limit(limit, 20, Duration.ofSeconds(1), "receipt_margin_ms", 0);
        LockWatch watch = new LockWatch(copies, limit);
        watch.start();
        try {
            copies.grantAllThroughTheLoop(gate, limit, slots, Duration.ofSeconds(30));
        } finally {
            watch.stop();
        }

        assertEquals(slots, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit));
        String late = "extract(epoch FROM sent_at - slot_at) * 1000";
        System.out.printf("woken %d ms early: %d sends at 20/s, late after their slot p50 %d ms, p90 %d ms, max %d ms%n",
                GrantLoop.LEAD.toMillis(), slots,
                copies.count("SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY " + late + "))::bigint "
                        + "FROM gate_send WHERE limit_name = ?", limit),
                copies.count("SELECT round(percentile_cont(0.9) WITHIN GROUP (ORDER BY " + late + "))::bigint "
                        + "FROM gate_send WHERE limit_name = ?", limit),
                copies.count("SELECT round(max(" + late + "))::bigint FROM gate_send WHERE limit_name = ?", limit));
        assertEquals(0, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ? AND sent_at < slot_at",
                limit), "no send before its slot");
        System.out.printf("the limit's row asked for %d times while the loop granted: held %d times (%.1f%%)%n",
                watch.asked(), watch.held(), 100.0 * watch.held() / watch.asked());
        assertTrue(watch.asked() > 200, "the watcher asked throughout: " + watch.asked());
        assertTrue(watch.held() * 4 < watch.asked(), "the row is free while the loop waits for a slot (held "
                + watch.held() + " of " + watch.asked() + " asks; waiting under the lock held it some 40%)");
    }

    /** Asks for the limit's row lock without waiting, every 2 ms on a connection of its own; counts how it went. */
    private static final class LockWatch {
        private final GateCopies copies;
        private final String limit;
        private final java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        private final java.util.concurrent.atomic.AtomicInteger held = new java.util.concurrent.atomic.AtomicInteger();
        private volatile boolean running = true;
        private Thread thread;

        LockWatch(GateCopies copies, String limit) {
            this.copies = copies;
            this.limit = limit;
        }

        void start() {
            thread = new Thread(() -> {
                try (java.sql.Connection c = copies.connect();
                     java.sql.PreparedStatement ps = c.prepareStatement(
                             "SELECT 1 FROM gate_slot WHERE limit_name = ? FOR UPDATE NOWAIT")) {
                    c.setAutoCommit(false);
                    ps.setString(1, limit);
                    while (running) {
                        try {
                            ps.executeQuery().close();
                        } catch (java.sql.SQLException e) {
                            if (!"55P03".equals(e.getSQLState())) { // lock_not_available: held by a pass
                                throw e;
                            }
                            held.incrementAndGet();
                        }
                        c.rollback();
                        asked.incrementAndGet();
                        Thread.sleep(2);
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "lock-watch");
            thread.start();
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join();
        }

        int asked() {
            return asked.get();
        }

        int held() {
            return held.get();
        }
    }
}
