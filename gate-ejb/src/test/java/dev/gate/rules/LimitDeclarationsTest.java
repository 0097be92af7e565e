package dev.gate.rules;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LimitDeclarationsTest {

    @Test
    void parsesSeveralLimitsWithUnits() {
        Map<String, Pace> limits = LimitDeclarations.parse(" vendor-a=600/60s, vendor.b = 10 / 1s,nightly=50000/1d,x=5/250ms");
        assertEquals(new Pace(600, Duration.ofSeconds(60)), limits.get("vendor-a"));
        assertEquals(new Pace(10, Duration.ofSeconds(1)), limits.get("vendor.b"));
        assertEquals(new Pace(50_000, Duration.ofDays(1)), limits.get("nightly"));
        assertEquals(new Pace(5, Duration.ofMillis(250)), limits.get("x"));
    }

    @Test
    void emptyDeclaresNothing() {
        assertTrue(LimitDeclarations.parse("").isEmpty());
        assertTrue(LimitDeclarations.parse(null).isEmpty());
    }

    @Test
    void badEntriesSayWhatIsWrong() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LimitDeclarations.parse("vendor-a=600"));
        assertTrue(e.getMessage().contains("vendor-a=600"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LimitDeclarations.parse("bad name=1/1s"));
        assertThrows(IllegalArgumentException.class, () -> LimitDeclarations.parse("a=1/1s,a=2/1s"));
        assertThrows(IllegalArgumentException.class, () -> LimitDeclarations.parse("a=0/1s"));
    }
}
