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
        assertEquals(Duration.ofMinutes(1), VendorCount.resetCap(rules));
    }
}
