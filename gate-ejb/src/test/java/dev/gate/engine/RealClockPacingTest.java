package dev.gate.engine;

import dev.gate.rules.ReceiptMargin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pacing rules with the real clock and a slot loop whose scheduler is late by a random 0-50% of a gap on every
 * wake. Fake timers are never late, so only this shows whether late wakes lose slots.
 */
class RealClockPacingTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @Test
    void aLateSchedulerKeepsTheRateAndNoWindowOverfills() throws Exception {
        String limit = "late";
        int calls = 200;
        Duration window = Duration.ofSeconds(10);
        // the gate paces on the window its receipt margin widens (ReceiptMargin): that is the rate it promises
        Duration counted = window.plus(ReceiptMargin.byDefault().forWindow(window));
        Duration gap = counted.dividedBy(calls);
        int slots = 260;
        Engine gate = copies.start("late-copy", GateCopies.FAST, new LateScheduler(gap.dividedBy(2)));
        copies.limit(limit, calls, window);
        copies.grantAllThroughTheLoop(gate, limit, slots, Duration.ofSeconds(60));

        List<Instant> sends = copies.sends(limit);
        assertEquals(slots, sends.size());
        Duration span = Duration.between(sends.get(0), sends.get(slots - 1));
        double achieved = (slots - 1) / (span.toNanos() / 1e9);
        double limitRate = calls / (counted.toNanos() / 1e9);
        long[] lateMs = new long[slots];
        for (int k = 0; k < slots; k++) {
            lateMs[k] = Duration.between(sends.get(0).plus(gap.multipliedBy(k)), sends.get(k)).toMillis();
        }
        System.out.printf("late scheduler: %d sends in %s, %.3f/s against a limit of %.3f/s (%.2f%%); behind the"
                        + " first send's beat at send 50: %d ms, 100: %d ms, 200: %d ms, last: %d ms%n", slots, span,
                achieved, limitRate, 100 * achieved / limitRate, lateMs[50], lateMs[100], lateMs[200],
                lateMs[slots - 1]);
        // never above the limit's rate; below it only by a stall of the host (a slot missed by more than a gap starts
        // the beat again from that moment): a beat paced from each late grant instead of its due moment would lose a
        // third of the rate here (each gap half a gap longer), far below this bound
        assertTrue(achieved / limitRate < 1.01, "achieved " + achieved + "/s against a limit of " + limitRate + "/s");
        assertTrue(achieved / limitRate > 0.95,
                "achieved " + achieved + "/s against a limit of " + limitRate + "/s: the beat drifted");
        assertTrue(GateCopies.fullestWindow(sends, window) <= calls,
                "a window held " + GateCopies.fullestWindow(sends, window) + " sends");
    }
}
