package dev.gate.rules;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VendorCountTest {

    private static final Instant NOW = Instant.parse("2026-12-04T14:00:00Z");
    private static final Instant RESET = NOW.plusSeconds(30);

    @Test
    void untilItsResetTheGateSendsNoMoreThanTheVendorSaidWasLeft() {
        VendorCount said = new VendorCount(100, 3, RESET); // 3 left after the 100th unit
        assertEquals(Optional.empty(), said.holdsUntil(100, Cost.ONE, NOW));
        assertEquals(Optional.empty(), said.holdsUntil(102, Cost.ONE, NOW), "the third of the three");
        assertEquals(Optional.of(RESET), said.holdsUntil(103, Cost.ONE, NOW), "a fourth waits for the reset");
        assertEquals(Optional.of(RESET), said.holdsUntil(101, Cost.of(3), NOW), "so do 3 units after 1");
        assertEquals(Optional.empty(), said.holdsUntil(103, Cost.ONE, RESET), "at the reset the hold is over");
        assertEquals(1, said.left(102));
        assertEquals(0, said.left(110));
    }

    @Test
    void unitsGrantedBeforeTheReportingCallDoNotCountAgainstIt() {
        VendorCount said = new VendorCount(100, 0, RESET);
        assertEquals(Optional.of(RESET), said.holdsUntil(100, Cost.ONE, NOW));
        assertEquals(0, said.left(90), "never more than the vendor said");
    }

    @Test
    void aReportIsNeverTrustedBeyondTheDeclaredRule() {
        LimitRules rules = new LimitRules(List.of(Pace.of(10, 1000), Pace.of(600, 60_000)), Duration.ZERO);
        assertTrue(VendorCount.accepted(0, rules));
        assertTrue(VendorCount.accepted(600, rules));
        assertFalse(VendorCount.accepted(601, rules), "more than any rule allows is not this limit's count");
        assertFalse(VendorCount.accepted(-1, rules));
        assertEquals(Duration.ofMinutes(1), VendorCount.resetCap(rules, Duration.ofHours(1)));
        assertEquals(Duration.ofSeconds(30), VendorCount.resetCap(rules, Duration.ofSeconds(30)),
                "and no longer than a cool-down may last");
    }

    @Test
    void aFullWindowOfTheGatesOwnHoldsUntilItsOldestUnitLeavesByTheGatesOwnLog() {
        Pace second = ReceiptMargin.byDefault().widen(LimitRules.of(Pace.of(3, 1000))).rules().get(0);
        LimitRules rules = LimitRules.of(second);
        Instant t0 = Instant.parse("2026-12-04T12:00:00Z");
        java.util.function.LongFunction<Instant> sent = n -> n >= 1 && n <= 5 ? t0.plusMillis(100 * n) : null;
        // units 1..5 sent 100 ms apart; the reporting call's is unit 5: the window of 3 holds units 3, 4, 5
        assertEquals(t0.plusMillis(300).plus(second.window()), VendorCount.ownLeave(null, rules, 5, sent),
                "unit 3 leaves one widened window after it");
        assertEquals(null, VendorCount.ownLeave(7, rules, 5, sent), "a quota no rule has: no leave of the gate's");
    }

    @Test
    void aCountTheGatesOwnSendsExplainHoldsNothingOneWithOthersUseDoes() {
        Pace second = Pace.of(20, 1000);
        Pace day = Pace.of(2_000_000, 86_400_000);
        LimitRules alone = LimitRules.of(second);
        // the vendor says 2 of 20 left: 18 used; the gate logged 19 in the last second, 18 of them before the report
        assertTrue(VendorCount.explained(2, null, alone, p -> 18), "18 used, 18 the gate's own: nobody else's");
        assertTrue(VendorCount.explained(1, 20, alone, p -> 19), "19 of the gate's own: its rule holds the last");
        assertTrue(VendorCount.explained(0, 20, alone, p -> 20), "a full window of the gate's own: its own log says "
                + "when it frees (ownLeave), not the vendor's rounded reset");
        assertFalse(VendorCount.explained(2, null, alone, p -> 8), "10 used by another client: the count holds");
        assertFalse(VendorCount.explained(0, null, alone, p -> 19), "one more than the gate sent: holds");

        LimitRules both = new LimitRules(List.of(second, day), Duration.ZERO);
        java.util.function.ToLongFunction<Pace> own = p -> p == second ? 18 : 5_000;
        assertFalse(VendorCount.explained(2, null, both, own),
                "without a quota, the day's rule could be the one counted: 1,999,998 used is not the gate's alone");
        assertTrue(VendorCount.explained(2, 20, both, own), "the quota names the second's rule, which explains it");
        assertFalse(VendorCount.explained(2, 2_000_000, both, own), "the day's count: another client used it");
        assertFalse(VendorCount.explained(2, 50, both, own), "a quota no rule has: the count holds, as always");
        assertFalse(VendorCount.explained(30, null, alone, p -> 20), "no rule could be this count's: explains nothing");
    }

    @Test
    void aCountOnAKeysCallIsItsParentsWhenItNamesAParentsRuleOrOnlyTheParentCouldHoldIt() {
        List<Integer> key = List.of(5, 100);
        List<Integer> parent = List.of(600, 10_000);
        assertTrue(VendorCount.ofParent(0, 600, key, parent), "the quota names the parent's rule");
        assertFalse(VendorCount.ofParent(0, 5, key, parent), "the quota names the key's rule");
        assertTrue(VendorCount.ofParent(0, 5, List.of(5), List.of(5)),
                "a quota both have: the parent's, which holds the key as well");
        assertFalse(VendorCount.ofParent(0, 7, key, parent), "a quota neither has: the key's (taken as a key's count)");
        assertTrue(VendorCount.ofParent(550, null, key, parent), "more than any key's rule: the parent's");
        assertFalse(VendorCount.ofParent(50, null, key, parent), "no quota, and the key could hold it: the key's");
        assertFalse(VendorCount.ofParent(20_000, null, key, parent), "more than the parent's too: nobody's");
    }
}
