package dev.gate.rules;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TableCareTest {

    private static final Instant NOW = Instant.parse("2026-12-03T12:00:00Z");
    private final TableCare care = TableCare.DEFAULTS;

    @Test
    void aTableAutovacuumLooksAfterIsLeftToIt() {
        TableCare.Table call = new TableCare.Table("gate_call", 80_000, 600_000, true, null);
        assertTrue(care.needsVacuum(call));
        assertTrue(care.next(List.of(call), NOW).isEmpty());
    }

    @Test
    void deadRowsPastTheFloorAndTheLiveShareAreVacuumedMostDeadFirst() {
        TableCare.Table call = new TableCare.Table("gate_call", 80_000, 9_000, false, null); // 1,000 + 8,000: due
        TableCare.Table send = new TableCare.Table("gate_send", 175_000, 19_000, false, null); // 1,000 + 17,500: due
        TableCare.Table slot = new TableCare.Table("gate_slot", 10, 900, false, null); // under the floor
        assertEquals("gate_send", care.next(List.of(call, send, slot), NOW).orElseThrow().name());
        assertEquals("gate_call", care.next(List.of(call, slot), NOW).orElseThrow().name());
        assertTrue(care.next(List.of(slot), NOW).isEmpty());
        assertFalse(care.needsVacuum(new TableCare.Table("gate_call", 80_000, 8_999, false, null)));
    }

    @Test
    void aTableVacuumedJustNowRestsEvenWithDeadRowsLeft() {
        // dead rows a vacuum could not remove (a transaction holds them back) must not make it vacuum again and again
        TableCare.Table justNow = new TableCare.Table("gate_call", 0, 50_000, false, NOW.minusSeconds(30));
        TableCare.Table aWhileAgo = new TableCare.Table("gate_call", 0, 50_000, false, NOW.minusSeconds(60));
        assertTrue(care.next(List.of(justNow), NOW).isEmpty());
        assertEquals(aWhileAgo, care.next(List.of(aWhileAgo), NOW).orElseThrow());
    }

    @Test
    void aTableWhoseRowsChangedPastTheAnalyzeBoundIsAnalyzedMostChangedFirstUnlessAutovacuumLooksAfterIt() {
        // a send log that only grew: no dead row, so never due a vacuum, but 50 + 10% of its live rows changed
        TableCare.Table send = new TableCare.Table("gate_send", 20_000, 0, false, null, 20_000, null);
        TableCare.Table call = new TableCare.Table("gate_call", 1_000, 0, false, null, 150, null); // 50 + 100: due
        TableCare.Table slot = new TableCare.Table("gate_slot", 1_000, 0, false, null, 149, null); // under the bound
        assertFalse(care.needsVacuum(send));
        assertTrue(care.next(List.of(send, call, slot), NOW).isEmpty(), "nothing to vacuum");
        assertEquals("gate_send", care.nextAnalyze(List.of(send, call, slot), NOW).orElseThrow().name());
        assertEquals("gate_call", care.nextAnalyze(List.of(call, slot), NOW).orElseThrow().name());
        assertTrue(care.nextAnalyze(List.of(slot), NOW).isEmpty());
        // an empty table that got its first rows: 50 changed are enough
        assertTrue(care.needsAnalyze(new TableCare.Table("gate_send", 0, 0, false, null, 50, null)));
        assertFalse(care.needsAnalyze(new TableCare.Table("gate_send", 0, 0, false, null, 49, null)));
        // autovacuum analyzes a table it looks after
        assertTrue(care.nextAnalyze(List.of(new TableCare.Table("gate_send", 20_000, 0, true, null, 20_000, null)),
                NOW).isEmpty());
    }

    @Test
    void aTableAnalyzedJustNowRests() {
        TableCare.Table justNow = new TableCare.Table("gate_send", 0, 0, false, null, 5_000, NOW.minusSeconds(30));
        TableCare.Table aWhileAgo = new TableCare.Table("gate_send", 0, 0, false, null, 5_000, NOW.minusSeconds(60));
        assertTrue(care.nextAnalyze(List.of(justNow), NOW).isEmpty());
        assertEquals(aWhileAgo, care.nextAnalyze(List.of(aWhileAgo), NOW).orElseThrow());
    }

    @Test
    void aTransactionHoldsBackVacuumOnlyPastTheSpanAllowed() {
        assertFalse(care.heldBack(null, NOW));
        assertFalse(care.heldBack(NOW.minus(Duration.ofMinutes(10)), NOW));
        assertTrue(care.heldBack(NOW.minus(Duration.ofMinutes(10)).minusSeconds(1), NOW));
    }
}
