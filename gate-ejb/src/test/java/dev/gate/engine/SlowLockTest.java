package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.Permit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A slow lock is not an outage: another session (as a gate instance stalled mid-pass by GC or a slow fsync would)
 * holds a limit's slot row for 2 s while calls wait on two copies. Nothing pauses, nobody is told "paused", and the
 * calls are granted in line order once the lock is released, with no window over the limit.
 */
class SlowLockTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();
    @RegisterExtension
    final LogCapture health = new LogCapture(Health.class);

    @Test
    void aSlotRowHeldForTwoSecondsPausesNothingAndTheLineResumesInOrder() throws Exception {
        String limit = "held";
        Duration window = Duration.ofSeconds(1);
        copies.limit(limit, 5, window);
        Engine a = copies.start("held-a");
        Engine b = copies.start("held-b");
        AtomicBoolean everPaused = new AtomicBoolean();
        Thread watch = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                if (a.paused() || b.paused()) {
                    everPaused.set(true);
                }
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        watch.start();

        Instant releasedAt;
        List<Ticket> line = new ArrayList<>();
        try (Connection holder = copies.connect()) {
            hold(holder, limit);
            long heldFrom = System.nanoTime();
            // joins alternate between the copies; each one's fast path and both loops meet the held row
            for (int i = 0; i < 8; i++) {
                Engine copy = i % 2 == 0 ? a : b;
                line.add(copy.callers().join(limit, i < 2 ? CallClass.BACKFILL : CallClass.SCHEDULED, "p" + i, CallOptions.NONE));
            }
            long left = Duration.ofSeconds(2).toNanos() - (System.nanoTime() - heldFrom);
            TimeUnit.NANOSECONDS.sleep(Math.max(0, left)); // the lock is held for 2 s: the fault under test
            assertTrue(line.stream().noneMatch(t -> t.granted().isDone()), "nothing granted while the slot is held");
            releasedAt = dbNow(holder);
            holder.rollback();
        }

        List<Permit> permits = new ArrayList<>();
        for (Ticket t : line) {
            Engine copy = line.indexOf(t) % 2 == 0 ? a : b;
            permits.add(copy.callers().await(t, Duration.ofSeconds(10)));
        }
        watch.interrupt();
        watch.join();

        assertFalse(everPaused.get(), "a held lock paused a copy");
        List<String> pauses = health.said(Level.WARNING, "calls are paused");
        assertTrue(pauses.isEmpty(), "logged: " + pauses);
        for (Permit p : permits) {
            assertFalse(p.grantedAt().isBefore(releasedAt), "granted only after the lock was released");
        }
        List<Long> expected = new ArrayList<>();
        for (int i = 2; i < 8; i++) {
            expected.add(line.get(i).callId()); // SCHEDULED before BACKFILL, each in arrival order
        }
        expected.add(line.get(0).callId());
        expected.add(line.get(1).callId());
        assertEquals(expected, copies.ids("SELECT call_id FROM gate_send WHERE limit_name = ? ORDER BY seq", limit),
                "granted in line order");
        assertTrue(GateCopies.fullestWindow(copies.sends(limit), window) <= 5, "no window over the limit");
        for (Ticket t : line) {
            try {
                t.granted().get(0, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw new AssertionError("a waiter was told " + e.getCause(), e);
            }
        }
    }

    @Test
    void aConsumeOnASlotRowHeldForTwoSecondsIsToldBusyTakesNothingAndGoesOnceItIsFree() throws Exception {
        String limit = "held-inbound";
        copies.limit(limit, 100, Duration.ofSeconds(1));
        Engine a = copies.start("held-inbound-a");
        try (Connection holder = copies.connect()) {
            hold(holder, limit);
            long heldUntil = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            int told = 0;
            while (System.nanoTime() < heldUntil) { // the lock is held for 2 s: the fault under test
                dev.gate.api.GateBusyException busy = org.junit.jupiter.api.Assertions.assertThrows(
                        dev.gate.api.GateBusyException.class,
                        () -> a.callers().tryConsume(limit, CallClass.INTERACTIVE, "api", CallOptions.NONE));
                assertTrue(busy.getMessage() != null && !busy.getMessage().isBlank(), "told why");
                told++;
            }
            assertTrue(told > 0);
            assertFalse(a.paused(), "a held lock is not an outage");
            holder.rollback();
        }
        assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ?", limit),
                "a consume told busy wrote no call");
        assertEquals(0, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ?", limit),
                "and no send");
        assertTrue(a.callers().tryConsume(limit, CallClass.INTERACTIVE, "api", CallOptions.NONE).isGranted(),
                "granted once the lock is free");
        assertTrue(health.said(Level.WARNING, "calls are paused").isEmpty(), "no pause logged");
    }

    /** The limit's slot row locked by {@code holder}, as a stalled instance's pass would hold it, until it rolls back. */
    private static void hold(Connection holder, String limit) throws Exception {
        holder.setAutoCommit(false);
        try (PreparedStatement ps = holder.prepareStatement("SELECT 1 FROM gate_slot WHERE limit_name = ? FOR UPDATE")) {
            ps.setString(1, limit);
            ps.executeQuery().close();
        }
    }

    private static Instant dbNow(Connection c) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("SELECT clock_timestamp()"); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class).toInstant();
        }
    }
}
