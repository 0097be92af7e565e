package dev.gate.rules;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CostTest {

    private static final Duration GAP = Duration.ofMillis(100);
    private static final Instant SLOT = Instant.parse("2026-12-01T10:00:00Z");

    @Test
    void aCallOfThreeUnitsTakesThreeGapsOfTheBeat() {
        assertEquals(SLOT.plus(GAP.multipliedBy(3)), Beat.next(SLOT, SLOT.plusMillis(40), GAP, 1, Cost.of(3)));
        assertEquals(Beat.next(SLOT, SLOT.plusMillis(40), GAP), Beat.next(SLOT, SLOT.plusMillis(40), GAP, 1, Cost.ONE));
    }

    @Test
    void aSlipRestartsFromTheActualSendWithTheUnitsGapsLessTheBurst() {
        Instant sent = SLOT.plusSeconds(60);
        assertEquals(sent.plus(GAP.multipliedBy(3)), Beat.next(SLOT, sent, GAP, 1, Cost.of(3)));
        // a burst of 4 after idle time: three gaps of tolerance, so a cost-3 call leaves the next slot at the send
        assertEquals(sent, Beat.next(SLOT, sent, GAP, 4, Cost.of(3)));
    }

    @Test
    void theUnitThatMustLeaveTheWindowIsTheCallsLessTheCostPlusOneThMostRecent() {
        // 20 units sent, a rule of 10: a call of 1 waits for unit 11 to leave, a call of 4 for unit 14
        assertEquals(11, Cost.ONE.unitToLeave(20, 10));
        assertEquals(14, Cost.of(4).unitToLeave(20, 10));
        assertEquals(20, Cost.of(10).unitToLeave(20, 10), "a call of the whole window waits for it to be empty");
        assertEquals(20, Cost.of(12).unitToLeave(20, 10), "above a rule's calls (an adaptive cut): the same");
        assertTrue(Cost.of(4).unitToLeave(5, 10) < 1, "a log of fewer units than the window leaves room");
    }

    @Test
    void aWindowHoldsTenUnitsWhateverTheCostsWhenTheDecisionIsFedTheirUnit() {
        Pace pace = Pace.of(10, 1000);
        LimitRules rules = LimitRules.of(pace);
        List<Instant> units = new ArrayList<>(); // the send log: one entry per unit
        Instant now = SLOT;
        int[] costs = {3, 1, 4, 1, 5, 2, 6, 1, 3, 10, 2, 2, 7};
        Instant slot = SLOT;
        for (int cost : costs) {
            Cost c = Cost.of(cost);
            while (true) {
                long unit = c.unitToLeave(units.size(), pace.calls());
                Optional<Instant> leaving = unit >= 1 ? Optional.of(units.get((int) unit - 1)) : Optional.empty();
                SlotDecision d = SlotRule.decide(rules, now, slot, List.of(leaving), Optional.empty(), null);
                if (d.sendNow()) {
                    for (int u = 0; u < cost; u++) {
                        units.add(now);
                    }
                    slot = Beat.next(d.notBefore(), now, rules.gap(), 1, c);
                    break;
                }
                now = d.notBefore();
            }
        }
        for (Instant t : units) {
            Instant from = t.minus(pace.window());
            long inWindow = units.stream().filter(u -> u.isAfter(from) && !u.isAfter(t)).count();
            assertTrue(inWindow <= 10, "a window held " + inWindow + " units at " + t);
        }
        assertEquals(47, units.size());
    }

    @Test
    void aCostBelowOneIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Cost.of(0));
        assertFalse(Cost.of(2).isOne());
    }
}
