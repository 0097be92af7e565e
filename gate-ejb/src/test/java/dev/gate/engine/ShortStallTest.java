package dev.gate.engine;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.GatePausedException;
import dev.gate.api.LimitStatus;
import dev.gate.api.Permit;
import dev.gate.dev.TcpProxy;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A short stall of the database link is no outage: when the link holds every byte for 1.5 s (a proxy stopped, then
 * resumed) and no caller's step needs the database meanwhile, the gate's own work (heartbeat, sweeps, the delivery
 * poll, the slot loop's read, the listener's round trip, the table check, the meters' read) waits it out: calls never
 * pause, and the call waiting across the stall is granted, not told "paused". A silence that outlasts a stall is still
 * an outage, found with no caller's help.
 */
class ShortStallTest {

    /** What the gate promises: a silence of the database under this long is a stall, not an outage. */
    private static final Duration STALL = Duration.ofSeconds(2);

    @RegisterExtension
    final GateCopies copies = new GateCopies();
    @RegisterExtension
    final LogCapture health = new LogCapture(Health.class);
    private TcpProxy proxy;
    private Engine gate;

    @BeforeEach
    void aCopyBehindAProxy() throws Exception {
        proxy = copies.proxy();
        // a pool that waits out a stall as the server's does: the test pool's 500 ms wait for a connection would not
        gate = copies.start("stalled", GateCopies.FAST, new ScheduledThreadPoolExecutor(2),
                copies.poolRidingStallsThrough(proxy));
    }

    @Test
    void aStallOfOneAndAHalfSecondsPausesNothingAndTheWaitingCallIsGranted() throws Exception {
        String limit = "steady";
        copies.limit(limit, 1, Duration.ofSeconds(4));
        gate.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE);
        // its slot is 4 s away: no grant is due in the stall, only the gate's own work meets it
        Ticket waiting = gate.callers().join(limit, CallClass.SCHEDULED, "timer", CallOptions.NONE);
        AtomicBoolean everPaused = new AtomicBoolean();
        Thread watch = watchPaused(everPaused);

        HikariDataSource link = copies.poolThrough(proxy);
        copies.closeAfter(link);
        ExecutorService inTheStall = Executors.newFixedThreadPool(3);
        Future<Duration> heldAnswer;
        Future<Optional<TableUpkeep.Status>> tableCheck;
        Future<List<LimitStatus>> metersRead;
        try (Connection seen = link.getConnection()) {
            seen.setNetworkTimeout(Runnable::run, 10_000);
            TimeUnit.MILLISECONDS.sleep(300); // the gate's own work goes on for a while first
            proxy.freeze();
            long from = System.nanoTime();
            try {
                heldAnswer = inTheStall.submit(() -> { // a connection held through the stall: it lives on
                    roundTrip(seen);
                    return Duration.ofNanos(System.nanoTime() - from);
                });
                tableCheck = inTheStall.submit(() -> gate.tables().check());
                metersRead = inTheStall.submit(() -> gate.limits().statusInBackground());
                TimeUnit.MILLISECONDS.sleep(1_500); // the fault under test: 1.5 s without a byte either way
            } finally {
                proxy.resume();
            }
            Duration stalled = heldAnswer.get(10, TimeUnit.SECONDS);
            System.out.printf("an answer held %d ms by the stall%n", stalled.toMillis());
            assertTrue(stalled.compareTo(Duration.ofMillis(1_400)) >= 0, "the link stalled for " + stalled);
        } finally {
            inTheStall.shutdown();
        }

        Permit granted = gate.callers().await(waiting, Duration.ofSeconds(10)); // not told "paused"
        assertEquals(waiting.callId(), granted.callId());
        watch.interrupt();
        watch.join();
        assertEquals(List.of(), health.said(Level.WARNING, "calls are paused"), "no pause was logged");
        assertFalse(everPaused.get(), "calls never paused");
        assertTrue(tableCheck.get(5, TimeUnit.SECONDS).isPresent(), "the table check made in the stall came back");
        assertEquals(limit, metersRead.get(5, TimeUnit.SECONDS).get(0).getName(),
                "the meters' read made in the stall came back");
    }

    @Test
    void aSilenceLongerThanAStallIsAnOutageFoundWithoutACaller() throws Exception {
        String limit = "quiet";
        copies.limit(limit, 1, Duration.ofSeconds(20));
        gate.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE);
        Ticket waiting = gate.callers().join(limit, CallClass.SCHEDULED, "timer", CallOptions.NONE);

        proxy.freeze(); // and it stays silent: no caller's step meets it, only the gate's own work
        long from = System.nanoTime();
        GateCopies.await("the gate to find its database gone", Duration.ofSeconds(10), gate::paused);
        Duration found = Duration.ofNanos(System.nanoTime() - from);
        System.out.printf("a silence found after %d ms (a stall is under %d ms)%n", found.toMillis(),
                STALL.toMillis());
        assertTrue(found.compareTo(STALL) >= 0, "a silence taken for an outage after " + found + ", within a stall");
        GateCopies.await("the waiter to be told", Duration.ofSeconds(3), () -> waiting.granted().isDone());
        ExecutionException told = assertThrows(ExecutionException.class, () -> waiting.granted().get());
        assertTrue(told.getCause() instanceof GatePausedException, "told " + told.getCause());

        proxy.thaw();
        GateCopies.await("the gate to resume", Duration.ofSeconds(5), () -> !gate.paused());
    }

    private Thread watchPaused(AtomicBoolean everPaused) {
        Thread watch = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                if (gate.paused()) {
                    everPaused.set(true);
                }
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "paused-watch");
        watch.setDaemon(true);
        watch.start();
        return watch;
    }

    private static void roundTrip(Connection c) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
            rs.next();
        }
    }
}
