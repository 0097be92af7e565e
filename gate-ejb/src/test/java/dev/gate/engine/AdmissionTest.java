package dev.gate.engine;

import dev.gate.api.GateBusyException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Admission tells a crowd from an outage: with every turn taken past the wait, a step hears "busy, try again" and
 * calls are not paused (an unavailable database pauses them: OutageTest).
 */
class AdmissionTest {

    @Test
    void noTurnWithinTheWaitIsBusyNotPaused() throws Exception {
        Health health = new Health(e -> { });
        Admission admission = new Admission(health, 1, Duration.ofMillis(100));
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Integer> slow = CompletableFuture.supplyAsync(() -> {
            try {
                return admission.run(() -> {
                    holding.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return 1;
                });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(holding.await(5, TimeUnit.SECONDS));
        GateBusyException busy = assertThrows(GateBusyException.class, () -> admission.run(() -> 2));
        assertTrue(busy.getMessage().contains("no turn"), busy.getMessage());
        assertFalse(health.isPaused(), "a crowd is not an outage");
        release.countDown();
        assertEquals(1, slow.get(5, TimeUnit.SECONDS));
        assertEquals(3, admission.run(() -> 3), "the next step is let in");
    }
}
