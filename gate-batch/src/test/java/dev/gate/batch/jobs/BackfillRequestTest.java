package dev.gate.batch.jobs;

import dev.gate.app.Progress;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BackfillRequestTest {

    private static Map<String, String> good() {
        Map<String, String> m = new HashMap<>();
        m.put("limit", "vendor-a");
        m.put("symbols", "AAPL,MSFT,IBM");
        m.put("from", "2024-01-01");
        m.put("to", "2024-01-10");
        m.put("vendorUrl", "http://vendor:8080/demo-vendor");
        return m;
    }

    @Test
    void aGoodRequestCountsItsItems() {
        BackfillRequest r = BackfillRequest.parse(good());
        assertEquals(30, r.items());
        assertEquals(30, BackfillRequest.items(r.parameters()));
        assertEquals("vendor-a", r.parameters().getProperty("limit"));
    }

    @Test
    void aBadOrUnknownParameterIsRefusedBeforeAnythingStarts() {
        assertTrue(refused("limit", "no such name!").startsWith("limit"));
        assertTrue(refused("vendorUrl", "ftp://x").startsWith("vendorUrl"));
        assertTrue(refused("vendorUrl", null).startsWith("vendorUrl"));
        assertTrue(refused("checkpointEvery", "0").startsWith("checkpointEvery"));
        assertTrue(refused("checkpointEvery", "ten").startsWith("checkpointEvery"));
        assertTrue(refused("class", "URGENT").startsWith("gate.class"));
        assertTrue(refused("to", "2023-01-01").startsWith("to"));
        assertTrue(refused("colour", "red").startsWith("unknown parameters [colour]"));
    }

    @Test
    void progressCountsTheRateOverTheLastMinuteOrSinceTheStart() {
        Progress early = Progress.of(20, 120, 20, Duration.ofSeconds(10));
        assertEquals(120.0, early.perMinute(), 0.001, "20 in the first 10 s is 120 a minute");
        assertEquals(Duration.ofSeconds(50), early.left());
        assertEquals(16, early.percent());
        Progress later = Progress.of(600, 1200, 300, Duration.ofMinutes(5));
        assertEquals(300.0, later.perMinute(), 0.001);
        assertEquals(Duration.ofMinutes(2), later.left());
        assertNull(Progress.of(10, 10, 0, Duration.ofMinutes(1)).left(), "done: nothing left");
        assertNull(Progress.of(5, 10, 0, Duration.ofMinutes(3)).left(), "stalled: no estimate");
    }

    private static String refused(String key, String value) {
        Map<String, String> m = good();
        m.put(key, value);
        return assertThrows(IllegalArgumentException.class, () -> BackfillRequest.parse(m)).getMessage();
    }
}
