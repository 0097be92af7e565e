package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A caller that is still waiting never loses its call: with the production timings, the shortest lease (5 s) is at
 * least three heartbeats, and each tick renews before it clears lapsed leases.
 */
class HeartbeatLeaseTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @Test
    void theShortestLeaseStaysWaitingWhileItsCallerWaits() throws Exception {
        String limit = "patient";
        copies.limit(limit, 1, Duration.ofMinutes(1));
        EngineSettings production = EngineSettings.defaults();
        Engine gate = copies.start("patient", production, new ScheduledThreadPoolExecutor(2));
        gate.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE); // the window is full for 60 s

        Ticket waiting = gate.callers().join(limit, CallClass.INTERACTIVE, "web", production.minLease());
        long until = System.nanoTime() + production.minLease().multipliedBy(3).toNanos();
        while (System.nanoTime() < until) {
            assertEquals("WAITING", copies.state(waiting.callId()), "a live waiter's call must not expire");
            assertTrue(!waiting.granted().isDone(), "its caller is told nothing");
            Thread.sleep(50);
        }
        gate.stop();
        assertEquals("CANCELLED", copies.state(waiting.callId()), "a clean stop takes it out of the line");
    }

    @Test
    void aLeaseShorterThanThreeHeartbeatsIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new EngineSettings(
                Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(300), Duration.ofSeconds(5),
                Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofMillis(250), 16, Duration.ofMillis(900)));
        assertTrue(e.getMessage().contains("three heartbeats"), e.getMessage());
    }
}
