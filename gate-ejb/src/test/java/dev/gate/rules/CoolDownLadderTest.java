package dev.gate.rules;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CoolDownLadderTest {

    private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");
    private static final CoolDownLadder LADDER = new CoolDownLadder(List.of(Duration.ofSeconds(2), Duration.ofSeconds(5),
            Duration.ofSeconds(15), Duration.ofSeconds(30), Duration.ofSeconds(60)),
            Duration.ofSeconds(2), 3);

    @Test
    void theVendorsAskWinsWhenItIsLongerThanTheStep() {
        CoolDown c = LADDER.signalled(CoolDown.NONE, Optional.of(Duration.ofSeconds(12)), T);
        assertEquals(1, c.step());
        assertEquals(T.plusSeconds(12), c.pausedUntil());
    }

    @Test
    void aProgramsReportedRetryAfterIsTakenUpToTheLimitsLongestAsk() {
        CoolDown day = LADDER.signalled(CoolDown.NONE, Optional.of(Duration.ofHours(24)), T);
        assertEquals(T.plus(CoolDownLadder.DEFAULT_LONGEST_ASK), day.pausedUntil(), "a day asked is an hour taken");
        CoolDownLadder patient = new CoolDownLadder(LADDER.steps(), LADDER.floor(), 3, Duration.ofHours(6));
        assertEquals(T.plus(Duration.ofHours(6)),
                patient.signalled(CoolDown.NONE, Optional.of(Duration.ofHours(24)), T).pausedUntil());
        assertEquals(T.plus(Duration.ofHours(2)),
                patient.signalled(CoolDown.NONE, Optional.of(Duration.ofHours(2)), T).pausedUntil());
        CoolDownLadder longSteps = new CoolDownLadder(List.of(Duration.ofMinutes(90)), LADDER.floor(), 3,
                Duration.ofMinutes(10));
        assertEquals(T.plus(Duration.ofMinutes(90)), longSteps.signalled(CoolDown.NONE, Optional.of(
                Duration.ofHours(24)), T).pausedUntil(), "the operator's own steps are not capped");
    }

    @Test
    void withoutRetryAfterTheFloorAndTheStepDecide() {
        CoolDown first = LADDER.signalled(CoolDown.NONE, Optional.empty(), T);
        assertEquals(T.plusSeconds(2), first.pausedUntil());
        CoolDown second = LADDER.signalled(first, Optional.empty(), T.plusSeconds(3));
        assertEquals(2, second.step());
        assertEquals(T.plusSeconds(3 + 5), second.pausedUntil(), "repeated signals climb the ladder");
        CoolDown top = second;
        for (int i = 0; i < 10; i++) {
            top = LADDER.signalled(top, Optional.empty(), T.plusSeconds(100));
        }
        assertEquals(5, top.step(), "the ladder tops out");
        assertEquals(T.plusSeconds(160), top.pausedUntil());
    }

    @Test
    void aPauseIsNeverShortenedByALaterSignal() {
        CoolDown long_ = LADDER.signalled(CoolDown.NONE, Optional.of(Duration.ofSeconds(60)), T);
        CoolDown after = LADDER.signalled(long_, Optional.of(Duration.ofSeconds(1)), T.plusSeconds(1));
        assertEquals(T.plusSeconds(60), after.pausedUntil());
    }

    @Test
    void aRunOfSuccessesStepsTheLadderDown() {
        CoolDown c = LADDER.signalled(LADDER.signalled(CoolDown.NONE, Optional.empty(), T), Optional.empty(), T);
        assertEquals(2, c.step());
        c = LADDER.succeeded(LADDER.succeeded(c));
        assertEquals(2, c.step(), "not yet a full run");
        c = LADDER.succeeded(c);
        assertEquals(1, c.step());
        assertEquals(0, c.successRun());
        c = LADDER.succeeded(LADDER.succeeded(LADDER.succeeded(c)));
        assertEquals(0, c.step());
        assertEquals(CoolDown.NONE.step(), LADDER.succeeded(c).step(), "the bottom stays the bottom");
    }

    @Test
    void minutesLaddersWorkToo() {
        CoolDownLadder minutes = new CoolDownLadder(List.of(Duration.ofMinutes(2), Duration.ofMinutes(5)),
                Duration.ofSeconds(2), 10);
        assertEquals(T.plus(Duration.ofMinutes(2)), minutes.signalled(CoolDown.NONE, Optional.empty(), T).pausedUntil());
    }

    @Test
    void onlyRateLimitAnswersAreSignals() {
        assertTrue(CoolDownLadder.isRateLimitSignal(429, null));
        assertTrue(CoolDownLadder.isRateLimitSignal(503, 5));
        assertFalse(CoolDownLadder.isRateLimitSignal(503, null));
        assertFalse(CoolDownLadder.isRateLimitSignal(500, 5));
        assertFalse(CoolDownLadder.isRateLimitSignal(200, null));
    }
}
