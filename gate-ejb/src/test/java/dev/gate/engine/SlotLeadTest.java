package dev.gate.engine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The slot loop wakes {@link GrantLoop#LEAD} before a slot and waits, holding no lock, until the slot is due by the
 * database's clock, then locks and grants: with the real clock, every send is recorded at or after its slot, never
 * before it (the wait is measured from the read's clock, so the early wake never makes an early send); and the
 * limit's row is free while the loop waits, for other instances' passes and callers' tries: a watcher asking for the
 * row's lock without waiting finds it held only while a pass writes a grant, hardly ever between one send and the next
 * slot (1 of 150 held asks on a loaded box; with the wait under the lock, 114 of 345).
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
        // a held ask between two sends, well after the earlier one was written (so not its pass, whose commit may lag
        // on a busy box) and before the later one's slot came, is the loop holding the row while it waits for a slot
        List<Instant[]> sends = new ArrayList<>();
        try (java.sql.Connection c = copies.connect(); java.sql.PreparedStatement ps = c.prepareStatement(
                "SELECT sent_at, slot_at FROM gate_send WHERE limit_name = ? ORDER BY seq")) {
            ps.setString(1, limit);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    sends.add(new Instant[] {rs.getTimestamp(1).toInstant(), rs.getTimestamp(2).toInstant()});
                }
            }
        }
        long heldEarly = 0;
        for (Instant t : watch.heldAt()) {
            for (int k = 1; k < sends.size(); k++) {
                if (t.isAfter(sends.get(k - 1)[0].plusMillis(25)) && t.isBefore(sends.get(k)[1].minusMillis(3))) {
                    heldEarly++;
                    break;
                }
            }
        }
        System.out.printf("the limit's row asked for %d times while the loop granted: held %d times (%.1f%%), %d of "
                + "them before the slot came%n", watch.asked(), watch.heldAt().size(),
                100.0 * watch.heldAt().size() / watch.asked(), heldEarly);
        assertTrue(watch.asked() > 200, "the watcher asked throughout: " + watch.asked());
        assertTrue(heldEarly * 5 <= watch.heldAt().size(), "the row is free while the loop waits for a slot: "
                + heldEarly + " of " + watch.heldAt().size() + " held asks came before the slot (waiting under the "
                + "lock, a third)");
    }

    /** Asks for the limit's row lock without waiting, every 2 ms on a connection of its own; notes when it was held. */
    private static final class LockWatch {
        private final GateCopies copies;
        private final String limit;
        private final java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        private final List<Instant> heldAt = new java.util.concurrent.CopyOnWriteArrayList<>();
        private volatile boolean running = true;
        private Thread thread;

        LockWatch(GateCopies copies, String limit) {
            this.copies = copies;
            this.limit = limit;
        }

        void start() {
            thread = new Thread(() -> {
                try (java.sql.Connection c = copies.connect();
                     java.sql.PreparedStatement clock = c.prepareStatement("SELECT clock_timestamp()");
                     java.sql.PreparedStatement ps = c.prepareStatement(
                             "SELECT 1 FROM gate_slot WHERE limit_name = ? FOR UPDATE NOWAIT")) {
                    c.setAutoCommit(false);
                    ps.setString(1, limit);
                    while (running) {
                        Instant askedAt;
                        try (java.sql.ResultSet rs = clock.executeQuery()) {
                            rs.next();
                            askedAt = rs.getTimestamp(1).toInstant();
                        }
                        try {
                            ps.executeQuery().close();
                        } catch (java.sql.SQLException e) {
                            if (!"55P03".equals(e.getSQLState())) { // lock_not_available: held by a pass
                                throw e;
                            }
                            heldAt.add(askedAt);
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

        /** The database's clock just before each ask that found the row held. */
        List<Instant> heldAt() {
            return heldAt;
        }
    }
}
