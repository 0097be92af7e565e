package dev.gate.batch;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GatePropertiesTest {

    @Test
    void aStepNeedsOnlyItsLimitAndItsCallTheRestHasDefaults() {
        GateProperties p = GateProperties.parse("vendor-a", null, "", null, "historyFetch", null, " ");
        assertEquals(CallClass.BACKFILL, p.callClass());
        assertEquals(Duration.ofMinutes(10), p.maxWait());
        assertEquals(20, p.retries());
        CallOptions none = p.options("AAPL/2024-01-02");
        assertNull(none.dedupeKey());
        assertNull(none.concurrencyKey());
        assertEquals(1, none.cost());
    }

    @Test
    void anItemsCallMayCostSeveralUnits() {
        GateProperties p = GateProperties.parse("vendor-a", null, null, null, "bulkFetch", null, null, "5");
        assertEquals(5, p.options("AAPL").cost());
        assertTrue(message(() -> GateProperties.parse("l", null, null, null, "c", null, null, "0"))
                .startsWith("gate.cost"));
        assertTrue(message(() -> GateProperties.parse("l", null, null, null, "c", null, null, "five"))
                .startsWith("gate.cost"));
    }

    @Test
    void keyTemplatesAreFilledWithTheItem() {
        GateProperties p = GateProperties.parse("vendor-a", "scheduled", "PT30S", "3", "historyFetch",
                "history:{item}", "store-{item}");
        assertEquals(CallClass.SCHEDULED, p.callClass());
        assertEquals(Duration.ofSeconds(30), p.maxWait());
        assertEquals(3, p.retries());
        CallOptions o = p.options("AAPL/2024-01-02");
        assertEquals("history:AAPL/2024-01-02", o.dedupeKey());
        assertEquals("store-AAPL/2024-01-02", o.concurrencyKey());
        assertEquals(200, p.options("x".repeat(300)).dedupeKey().length(), "a key is cut to the gate's 200");
        assertEquals(Duration.ofSeconds(45), GateProperties.parse("l", null, "45", null, "c", null, null).maxWait());
    }

    @Test
    void aBadPropertyNamesItself() {
        assertTrue(message(() -> GateProperties.parse(null, null, null, null, "c", null, null)).startsWith("gate.limit"));
        assertTrue(message(() -> GateProperties.parse("l", null, null, null, "", null, null)).startsWith("gate.call"));
        assertTrue(message(() -> GateProperties.parse("l", "SOON", null, null, "c", null, null)).startsWith("gate.class"));
        assertTrue(message(() -> GateProperties.parse("l", null, "ten", null, "c", null, null)).startsWith("gate.maxWait"));
        assertTrue(message(() -> GateProperties.parse("l", null, "PT0S", null, "c", null, null)).startsWith("gate.maxWait"));
        assertTrue(message(() -> GateProperties.parse("l", null, null, "-1", "c", null, null)).startsWith("gate.retries"));
    }

    @Test
    void theVendorSaysSlowDownWithA429OrA503ThatCarriesRetryAfter() {
        assertTrue(new VendorAnswer<>(429, null, null).slowDown());
        assertTrue(new VendorAnswer<>(503, Duration.ofSeconds(3), null).slowDown());
        assertFalse(new VendorAnswer<>(503, null, null).slowDown(), "a 503 alone is a failure, not a pace signal");
        assertFalse(new VendorAnswer<>(200, null, null).slowDown());
        assertThrows(IllegalArgumentException.class, () -> new VendorAnswer<>(42, null, null));
    }

    private static String message(Runnable r) {
        return assertThrows(IllegalArgumentException.class, r::run).getMessage();
    }
}
