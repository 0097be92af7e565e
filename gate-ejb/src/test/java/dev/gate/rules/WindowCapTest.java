package dev.gate.rules;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

class WindowCapTest {

    private static final Pace TEN_PER_SECOND = Pace.of(10, 1_000);
    private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");

    @Test
    void aWindowWithRoomSaysNothing() {
        assertEquals(Optional.empty(), WindowCap.roomAt(TEN_PER_SECOND, Optional.empty()));
    }

    @Test
    void aFullWindowHasRoomWhenItsOldestSendLeaves() {
        assertEquals(Optional.of(T.plusMillis(1_000)), WindowCap.roomAt(TEN_PER_SECOND, Optional.of(T)));
    }
}
