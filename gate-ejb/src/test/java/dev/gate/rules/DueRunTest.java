package dev.gate.rules;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sends one grant statement may make at one moment: the same as granting one call at a time, as a prefix. */
class DueRunTest {

    private static final Instant NOW = Instant.parse("2026-12-03T10:00:00Z");

    @Test
    void withoutABurstAFastLimitSendsOneAtAMoment() {
        // a million a second, the beat long behind: the send restarts the beat one gap after it, so nothing more is
        // due at this moment (the beat keeps sends a gap apart however fast the limit)
        LimitRules rules = LimitRules.of(Pace.of(1_000_000, 1_000));
        List<DueRun.Step> run = DueRun.plan(rules, NOW, NOW.minusSeconds(5), sends(List.of()), Optional.empty(),
                null, 64);
        assertEquals(1, run.size());
        assertEquals(NOW.plusNanos(1_000), run.get(0).next(NOW));
    }

    @Test
    void afterIdleTimeABurstOfFiftyIsOneRunAndTheWindowEndsIt() {
        // 50 a second with a burst of 50, idle for a minute, its last 50 sends long gone from the window
        LimitRules rules = new LimitRules(List.of(Pace.of(50, 1_000)), Duration.ZERO, 50);
        List<Optional<Instant>> old = Collections.nCopies(50, Optional.of(NOW.minusSeconds(60)));
        List<DueRun.Step> run = DueRun.plan(rules, NOW, NOW.minusSeconds(60), List.of(old),
                Optional.of(NOW.minusSeconds(60)), null, 64);
        assertEquals(50, run.size(), "the burst, all at once; the 51st would be the window's 51st");
        assertTrue(run.get(0).restart().isPresent(), "the first send restarts the beat (49 gaps back)");
        Duration gap = Duration.ofMillis(20);
        for (int i = 1; i < 50; i++) {
            assertEquals(NOW.minus(gap.multipliedBy(49 - i)), run.get(i).due(), "step " + i);
            assertTrue(run.get(i).fromFirstSend(), "counted from the first send's time");
        }
        assertEquals(NOW.plus(gap), run.get(49).next(NOW), "then the beat");
    }

    @Test
    void aWindowWithRoomForThreeGivesARunOfThree() {
        // 10 a second, burst 10, the beat 8 gaps behind (a pass just took the burst's first send): of the last 10
        // sends, the oldest three left the window, seven are inside it
        LimitRules rules = new LimitRules(List.of(Pace.of(10, 1_000)), Duration.ZERO, 10);
        List<Optional<Instant>> window = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            window.add(Optional.of(NOW.minusMillis(i < 3 ? 1_500 - i : 900 - i)));
        }
        List<DueRun.Step> run = DueRun.plan(rules, NOW, NOW.minusMillis(800), List.of(window),
                Optional.of(NOW.minusMillis(891)), null, 64);
        assertEquals(3, run.size());
        assertEquals(NOW.minusMillis(500), run.get(0).due(), "the window had room 500 ms ago: the beat goes on from there");
        assertEquals(NOW.minusMillis(300), run.get(2).due());
    }

    @Test
    void aCoolDownOrTheSpacingLeavesAtMostOne() {
        LimitRules rules = new LimitRules(List.of(Pace.of(100, 1_000)), Duration.ZERO, 10);
        assertEquals(0, DueRun.plan(rules, NOW, NOW.minusSeconds(10), sends(List.of()), Optional.empty(),
                NOW.plusSeconds(1), 64).size(), "cooling down");
        LimitRules spaced = new LimitRules(List.of(Pace.of(100, 1_000)), Duration.ofMillis(5), 10);
        assertEquals(1, DueRun.plan(spaced, NOW, NOW.minusSeconds(10), sends(List.of()), Optional.empty(), null,
                64).size(), "the next must wait the minimum spacing after this one");
    }

    @Test
    void aRunEndsWhereTheSendsReadGiveOut() {
        LimitRules rules = new LimitRules(List.of(Pace.of(100, 1_000)), Duration.ZERO, 10);
        assertEquals(1, DueRun.plan(rules, NOW, NOW.minusSeconds(10), List.of(List.of(Optional.empty())),
                Optional.empty(), null, 64).size(), "only the 100th most recent send was read");
    }

    /**
     * On random send logs, rules, bursts and beats, a run is a prefix of what deciding one send at a time (SlotRule,
     * then Beat, the send logged) gives at the same moment, slot for slot and beat for beat.
     */
    @Test
    void aRunIsWhatOneAtATimeGives() {
        Random random = new Random(27);
        int longer = 0;
        for (int round = 0; round < 5_000; round++) {
            List<Pace> paces = new ArrayList<>();
            paces.add(Pace.of(1 + random.nextInt(30), 100 + random.nextInt(2_000)));
            if (random.nextBoolean()) {
                paces.add(Pace.of(1 + random.nextInt(60), 1_000 + random.nextInt(10_000)));
            }
            LimitRules rules = new LimitRules(paces, random.nextInt(4) == 0 ? Duration.ofMillis(random.nextInt(50))
                    : Duration.ZERO, 1 + random.nextInt(12));
            List<Instant> log = new ArrayList<>(); // oldest first
            Instant t = NOW.minusMillis(random.nextInt(15_000));
            int n = random.nextInt(80);
            for (int i = 0; i < n; i++) {
                t = t.plusMillis(random.nextInt(300));
                if (t.isAfter(NOW)) {
                    break;
                }
                log.add(t);
            }
            Instant slot = NOW.plusMillis(random.nextInt(400) - 300);
            Instant paused = random.nextInt(8) == 0 ? NOW.plusMillis(random.nextInt(200) - 100) : null;
            int max = 1 + random.nextInt(40);

            List<List<Optional<Instant>>> windowSends = new ArrayList<>();
            for (Pace p : paces) {
                List<Optional<Instant>> list = new ArrayList<>();
                for (int i = 0; i < Math.min(p.calls(), max); i++) {
                    int index = log.size() - p.calls() + i; // the calls-th most recent, then newer ones
                    list.add(index < 0 ? Optional.empty() : Optional.of(log.get(index)));
                }
                windowSends.add(list);
            }
            Optional<Instant> last = log.isEmpty() ? Optional.empty() : Optional.of(log.get(log.size() - 1));
            List<DueRun.Step> run = DueRun.plan(rules, NOW, slot, windowSends, last, paused, max);

            // one at a time
            List<Instant> sent = new ArrayList<>(log);
            Instant s = slot;
            for (int i = 0; i < max; i++) {
                List<Optional<Instant>> nth = new ArrayList<>();
                for (Pace p : paces) {
                    int index = sent.size() - p.calls();
                    nth.add(index < 0 ? Optional.empty() : Optional.of(sent.get(index)));
                }
                Optional<Instant> lastSent = sent.isEmpty() ? Optional.empty() : Optional.of(sent.get(sent.size() - 1));
                SlotDecision d = SlotRule.decide(rules, NOW, s, nth, lastSent, paused);
                if (!d.sendNow()) {
                    assertTrue(run.size() <= i, "round " + round + ": the run sends where one at a time would not");
                    break;
                }
                Instant next = Beat.next(d.notBefore(), NOW, rules.gap(), rules.burst());
                if (i < run.size()) {
                    assertEquals(d.notBefore(), run.get(i).due(), "round " + round + ", step " + i);
                    assertEquals(next, run.get(i).next(NOW), "round " + round + ", step " + i);
                } else if (i == run.size()) {
                    longer++;
                }
                sent.add(NOW);
                s = next;
            }
        }
        System.out.println("runs cut short of one-at-a-time (a restart after the first, a cap after a restart, "
                + "max): " + longer + " of 5000");
    }

    private static List<List<Optional<Instant>>> sends(List<Optional<Instant>> one) {
        List<Optional<Instant>> list = new ArrayList<>(one);
        while (list.size() < 64) {
            list.add(Optional.empty());
        }
        return List.of(list);
    }
}
