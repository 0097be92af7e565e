package dev.gate.engine;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One pass at a time: arming while a pass runs never starts a second one beside it, but runs one after it. */
class SlotTimerTest {

    @Test
    void armingDuringAPassRunsTheNextPassAfterItNeverBesideIt() throws Exception {
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(4);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        AtomicInteger passes = new AtomicInteger();
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        CountDownLatch secondDone = new CountDownLatch(1);
        SlotTimer[] timer = new SlotTimer[1];
        timer[0] = new SlotTimer(scheduler, () -> {
            int now = running.incrementAndGet();
            mostAtOnce.accumulateAndGet(now, Math::max);
            int n = passes.incrementAndGet();
            try {
                if (n == 1) {
                    firstStarted.countDown();
                    releaseFirst.await(5, TimeUnit.SECONDS);
                } else {
                    secondDone.countDown();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                running.decrementAndGet();
            }
        });
        try {
            timer[0].armIn(Duration.ZERO);
            assertTrue(firstStarted.await(5, TimeUnit.SECONDS));
            // an outcome, a cancel and a fast path each ask for a pass now, while the first one runs
            for (int i = 0; i < 3; i++) {
                timer[0].armIn(Duration.ZERO);
            }
            Thread.sleep(200); // room for a wrongly scheduled pass to start beside the first
            assertEquals(1, passes.get(), "no second pass while the first runs");
            releaseFirst.countDown();
            assertTrue(secondDone.await(5, TimeUnit.SECONDS), "the pass asked for during the first runs after it");
            assertEquals(1, mostAtOnce.get(), "passes never overlap");
        } finally {
            timer[0].stop();
            scheduler.shutdownNow();
        }
    }
}
