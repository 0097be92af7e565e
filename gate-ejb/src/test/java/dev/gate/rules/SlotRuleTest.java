package dev.gate.rules;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The beat and the cap together, driven by a clock the test controls. */
class SlotRuleTest {

    private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

    @Test
    void waitsForTheSlot() {
        SlotDecision d = SlotRule.decide(Pace.of(10, 1_000), T0, T0.plusMillis(30), Optional.empty());
        assertFalse(d.sendNow());
        assertEquals(T0.plusMillis(30), d.notBefore());
    }

    @Test
    void sendsWhenTheSlotIsDueAndTheWindowHasRoom() {
        assertTrue(SlotRule.decide(Pace.of(10, 1_000), T0, T0, Optional.empty()).sendNow());
        assertTrue(SlotRule.decide(Pace.of(10, 1_000), T0.plusMillis(5), T0, Optional.empty()).sendNow());
    }

    @Test
    void theCapHoldsWhenTheBeatWouldAllowASend() {
        // the slot is due, but the 10th most recent send is only 900 ms old: the window is full for 100 ms more
        SlotDecision d = SlotRule.decide(Pace.of(10, 1_000), T0, T0.minusMillis(50),
                Optional.of(T0.minusMillis(900)));
        assertFalse(d.sendNow());
        assertEquals(T0.plusMillis(100), d.notBefore());
    }

    @Test
    void everyRuleMustHaveRoom() {
        LimitRules rules = new LimitRules(List.of(Pace.of(10, 1_000), Pace.of(20, 60_000)), Duration.ZERO);
        assertEquals(Duration.ofSeconds(3), rules.gap(), "the beat follows the slowest rule");
        // the per-second window has room, the per-minute one is full until its oldest send leaves
        SlotDecision d = SlotRule.decide(rules, T0, T0, List.of(Optional.empty(), Optional.of(T0.minusSeconds(50))),
                Optional.empty(), null);
        assertEquals(T0.plusSeconds(10), d.notBefore());
    }

    @Test
    void theMinimumSpacingHoldsEvenWhenTheBeatWouldAllowTwoSendsClose() {
        LimitRules rules = new LimitRules(List.of(Pace.of(100, 1_000)), Duration.ofMillis(200));
        assertEquals(Duration.ofMillis(200), rules.gap());
        SlotDecision d = SlotRule.decide(rules, T0, T0, List.of(Optional.empty()), Optional.of(T0.minusMillis(50)),
                null);
        assertEquals(T0.plusMillis(150), d.notBefore());
    }

    @Test
    void nothingGoesWhileTheLimitCoolsDown() {
        SlotDecision d = SlotRule.decide(LimitRules.of(Pace.of(10, 1_000)), T0, T0.minusSeconds(1),
                List.of(Optional.empty()), Optional.empty(), T0.plusSeconds(3));
        assertFalse(d.sendNow());
        assertEquals(T0.plusSeconds(3), d.notBefore());
    }

    @Test
    void anOnTimeSchedulerSendsExactlyOnTheBeat() {
        Simulation sim = new Simulation(Pace.of(10, 1_000));
        for (int i = 0; i < 50; i++) {
            sim.wakeAtNotBeforePlus(Duration.ZERO);
        }
        for (int i = 1; i < sim.sends.size(); i++) {
            assertEquals(Duration.ofMillis(100), Duration.between(sim.sends.get(i - 1), sim.sends.get(i)));
        }
        sim.assertNoWindowOverfull();
    }

    /**
     * Every wake, also a wake for the window cap, is late by a random 0-50% of a gap. The beat loses no slots; the cap
     * costs at most one wake's lateness per window (a send can never come earlier than the one a window before it),
     * so a limit of 100 per window keeps its rate within 1%.
     */
    @Test
    void aLateSchedulerKeepsTheLongRunRateAndTheCap() {
        Pace pace = Pace.of(100, 10_000);
        Simulation sim = new Simulation(pace);
        Random random = new Random(42);
        for (int i = 0; i < 2_000; i++) {
            sim.wakeAtNotBeforePlus(Duration.ofNanos((long) (random.nextDouble() * 0.5 * pace.gap().toNanos())));
        }
        Duration span = Duration.between(sim.sends.get(0), sim.sends.get(sim.sends.size() - 1));
        double rate = (sim.sends.size() - 1) / (span.toNanos() / 1e9);
        assertEquals(10.0, rate, 0.1, "lateness up to half a gap must not lose slots");
        sim.assertNoWindowOverfull();
    }

    @Test
    void aSlipOfMoreThanAGapResetsWithoutABurst() {
        Simulation sim = new Simulation(Pace.of(10, 1_000));
        sim.wakeAtNotBeforePlus(Duration.ZERO);
        sim.wakeAtNotBeforePlus(Duration.ofMillis(350)); // a stall of 3.5 gaps
        sim.wakeAtNotBeforePlus(Duration.ZERO);
        assertEquals(Duration.ofMillis(100), Duration.between(sim.sends.get(1), sim.sends.get(2)),
                "after the reset the next send is one gap after the late one, not a catch-up burst");
    }

    @Test
    void aLateSendHeldBackByTheCapOneWindowLaterShiftsTheBeatOnceAndDoesNotEcho() {
        Simulation sim = new Simulation(Pace.of(20, 1_100)); // a gap of 55 ms
        Duration loopLateness = Duration.ofMillis(5);
        for (int i = 0; i < 100; i++) {
            // one send 40 ms late (a stall), every other one 5 ms late (the loop's wake-up and round trips)
            sim.wakeAtNotBeforePlus(i == 3 ? Duration.ofMillis(40) : loopLateness);
        }
        sim.assertNoWindowOverfull();
        // one window later the cap holds send 23 back until send 3 leaves the window; the beat goes on from there:
        // every later send keeps at least a gap from the one before, at most the loop's lateness more (once a
        // window the cap holds a send back by that much: the sends a window earlier were that late). Counted from
        // the held-back beat instead, send 24 would follow 20 ms after send 23, and one window later the cap would
        // hold it back in turn: the stall echoing on, window after window.
        for (int i = 24; i < 100; i++) {
            long spacing = Duration.between(sim.sends.get(i - 1), sim.sends.get(i)).toMillis();
            assertTrue(spacing >= 55 && spacing <= 55 + loopLateness.toMillis(),
                    "send " + i + " came " + spacing + " ms after send " + (i - 1));
        }
        assertEquals(Duration.ofMillis(40 + 5), Duration.between(T0.plusMillis(55L * 23), sim.sends.get(23)),
                "the cap held send 23 back by the stall, plus the loop's lateness");
    }

    /** A limit whose loop wakes at each decision's time plus a lateness the test chooses. */
    private static final class Simulation {
        final Pace pace;
        final List<Instant> sends = new ArrayList<>();
        Instant now = T0;
        Instant slot = T0;

        Simulation(Pace pace) {
            this.pace = pace;
        }

        void wakeAtNotBeforePlus(Duration lateness) {
            while (true) {
                SlotDecision d = SlotRule.decide(pace, now, slot, nthMostRecent());
                if (d.sendNow()) {
                    sends.add(now);
                    slot = Beat.next(d.notBefore(), now, pace.gap());
                    return;
                }
                now = d.notBefore().plus(lateness);
            }
        }

        Optional<Instant> nthMostRecent() {
            return sends.size() >= pace.calls() ? Optional.of(sends.get(sends.size() - pace.calls())) : Optional.empty();
        }

        void assertNoWindowOverfull() {
            Deque<Instant> window = new ArrayDeque<>();
            for (Instant s : sends) {
                while (!window.isEmpty() && !window.peekFirst().isAfter(s.minus(pace.window()))) {
                    window.pollFirst();
                }
                window.addLast(s);
                assertTrue(window.size() <= pace.calls(), "window ending " + s + " holds " + window.size());
            }
        }
    }
}
