package dev.gate.engine;

import dev.gate.dev.TcpProxy;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.GatePausedException;
import dev.gate.api.Permit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The gate fails closed: when its database is gone it says calls are paused, grants nothing, and comes back alone. */
class OutageTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();
    private TcpProxy proxy;
    private Engine gate;

    @BeforeEach
    void aCopyBehindAProxy() throws Exception {
        proxy = copies.proxy();
        gate = copies.start("behind-proxy", GateCopies.FAST, new ScheduledThreadPoolExecutor(2),
                copies.poolThrough(proxy));
    }

    @Test
    void anOutagePausesCallsGrantsNothingAndTheGateResumesByItself() throws Exception {
        String limit = "flaky";
        Duration window = Duration.ofSeconds(1);
        copies.limit(limit, 2, window);
        List<Ticket> tickets = GateCopies.join(gate, limit, 6, CallClass.SCHEDULED, "timer");
        GateCopies.await("a send, with calls still waiting", Duration.ofSeconds(5),
                () -> tickets.get(0).granted().isDone() && !tickets.get(5).granted().isDone());

        Instant cutAt = dbNow();
        List<Ticket> waiting = tickets.stream().filter(t -> !t.granted().isDone()).toList();
        proxy.cut();

        long t0 = System.nanoTime();
        GatePausedException refused = assertThrows(GatePausedException.class,
                () -> gate.callers().acquire(limit, CallClass.INTERACTIVE, Duration.ofSeconds(5), "web", CallOptions.NONE));
        Duration refusedIn = Duration.ofNanos(System.nanoTime() - t0);
        assertTrue(refused.getMessage().startsWith("calls are paused: the gate's database is unavailable"),
                refused.getMessage());
        assertTrue(refusedIn.compareTo(Duration.ofSeconds(1)) < 0, "a new call was turned away after " + refusedIn);

        assertFalse(waiting.isEmpty());
        GateCopies.await("every waiter to be told", Duration.ofSeconds(3),
                () -> waiting.stream().allMatch(t -> t.granted().isDone()));
        for (Ticket t : waiting) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> t.granted().get());
            assertTrue(e.getCause() instanceof GatePausedException, "waiter woken with " + e.getCause());
        }
        assertTrue(gate.paused());
        long t1 = System.nanoTime();
        assertThrows(GatePausedException.class,
                () -> gate.callers().acquire(limit, CallClass.INTERACTIVE, Duration.ofSeconds(5), "web", CallOptions.NONE));
        assertTrue(System.nanoTime() - t1 < Duration.ofSeconds(1).toNanos(), "while paused, calls are turned away");

        Instant restoredAt = dbNow();
        proxy.restore();
        long t2 = System.nanoTime();
        GateCopies.await("the gate to resume", Duration.ofSeconds(2), () -> !gate.paused());
        Duration resumedIn = Duration.ofNanos(System.nanoTime() - t2);
        Permit after = gate.callers().acquire(limit, CallClass.INTERACTIVE, Duration.ofSeconds(5), "web", CallOptions.NONE);
        System.out.printf("outage: new call refused in %d ms, resumed %d ms after the database came back%n",
                refusedIn.toMillis(), resumedIn.toMillis());

        assertEquals(0, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ? AND sent_at > ? "
                + "AND sent_at < ?", limit, cutAt.atOffset(java.time.ZoneOffset.UTC),
                restoredAt.atOffset(java.time.ZoneOffset.UTC)), "nothing was granted during the outage");
        for (Ticket t : waiting) {
            GateCopies.await("call " + t.callId() + " told 'paused' to leave the line (it is " + state(t.callId())
                            + ")", Duration.ofSeconds(3),
                    () -> state(t.callId()).equals("CANCELLED"));
        }
        for (int i = 0; i < 4; i++) {
            gate.callers().acquire(limit, CallClass.MANUAL, Duration.ofSeconds(10), "ops", CallOptions.NONE);
        }
        assertTrue(GateCopies.fullestWindow(copies.sends(limit), window) <= 2, "no burst of catch-up sends");
        assertTrue(!after.grantedAt().isBefore(cutAt), "granted after the outage");
    }

    @Test
    void aSilentNetworkCutIsNoticedWithinASecondAndNothingIsGranted() throws Exception {
        String limit = "silent";
        copies.limit(limit, 2, Duration.ofSeconds(1));
        gate.callers().complete(gate.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE).callId(), 200);
        Ticket waiting = gate.callers().join(limit, CallClass.SCHEDULED, "timer", CallOptions.NONE);

        Instant cutAt = dbNow();
        proxy.freeze();
        long t0 = System.nanoTime();
        assertThrows(GatePausedException.class,
                () -> gate.callers().acquire(limit, CallClass.INTERACTIVE, Duration.ofSeconds(5), "web", CallOptions.NONE));
        Duration refusedIn = Duration.ofNanos(System.nanoTime() - t0);
        GateCopies.await("the waiter to be told", Duration.ofSeconds(3), () -> waiting.granted().isDone());
        assertThrows(ExecutionException.class, () -> waiting.granted().get());
        System.out.printf("silent cut: new call refused in %d ms%n", refusedIn.toMillis());
        assertTrue(refusedIn.compareTo(Duration.ofSeconds(1)) < 0, "refused after " + refusedIn);

        Instant thawAt = dbNow();
        proxy.thaw();
        GateCopies.await("the gate to resume", Duration.ofSeconds(3), () -> !gate.paused());
        gate.callers().acquire(limit, CallClass.INTERACTIVE, Duration.ofSeconds(5), "web", CallOptions.NONE);
        assertEquals(0, copies.count("SELECT count(*) FROM gate_send WHERE limit_name = ? AND sent_at > ? "
                        + "AND sent_at < ?", limit, cutAt.atOffset(java.time.ZoneOffset.UTC),
                thawAt.atOffset(java.time.ZoneOffset.UTC)), "nothing was granted during the cut");
    }

    @Test
    void aCallGrantedElsewhereWhileItsWaiterWasToldPausedEndsWhenTheGateResumes() throws Exception {
        String limit = "handed";
        copies.limit(limit, 1, Duration.ofMillis(1500));
        Engine direct = copies.start("direct"); // reaches the database without the proxy
        gate.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE); // the window is now full
        Ticket waiting = gate.callers().join(limit, CallClass.SCHEDULED, "timer", CallOptions.NONE);

        proxy.freeze(); // silent: the gate's sessions (and its instance lock) live on in the database
        GateCopies.await("the waiter to be told 'paused'", Duration.ofSeconds(3), () -> waiting.granted().isDone());
        ExecutionException told = assertThrows(ExecutionException.class, () -> waiting.granted().get());
        assertTrue(told.getCause() instanceof GatePausedException, "told " + told.getCause());
        // the other copy's loop grants the call when the window frees: nobody is left to take that grant
        GateCopies.await("the other copy to grant it", Duration.ofSeconds(5),
                () -> state(waiting.callId()).equals("GRANTED"));

        proxy.thaw();
        GateCopies.await("the gate to resume", Duration.ofSeconds(3), () -> !gate.paused());
        GateCopies.await("the grant nobody takes to end (it is " + state(waiting.callId()) + ")",
                Duration.ofSeconds(3), () -> state(waiting.callId()).equals("ABANDONED"));
        assertTrue(!direct.paused());
    }

    private String state(long id) {
        try (Connection c = copies.connect(); var ps = c.prepareStatement("SELECT state FROM gate_call WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The database's clock, read past the proxy. */
    private Instant dbNow() throws Exception {
        try (Connection c = copies.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT clock_timestamp()")) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class).toInstant();
        }
    }
}
