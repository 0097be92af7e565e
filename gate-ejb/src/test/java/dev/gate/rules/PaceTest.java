package dev.gate.rules;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PaceTest {

    @Test
    void gapIsWindowOverCalls() {
        assertEquals(Duration.ofMillis(100), Pace.of(600, 60_000).gap());
        assertEquals(Duration.ofSeconds(1), Pace.of(60, 60_000).gap());
    }

    @Test
    void gapRoundsUpToWholeMicrosecondsSoTheRateIsNeverExceeded() {
        // 1 s / 3 = 333333.33 us: rounded up, three gaps are never shorter than the window
        Duration gap = Pace.of(3, 1_000).gap();
        assertEquals(Duration.ofNanos(333_334_000), gap);
        assertEquals(true, gap.multipliedBy(3).compareTo(Duration.ofSeconds(1)) >= 0);
    }

    @Test
    void rejectsNonsense() {
        assertThrows(IllegalArgumentException.class, () -> Pace.of(0, 1000));
        assertThrows(IllegalArgumentException.class, () -> Pace.of(10, 0));
    }
}
