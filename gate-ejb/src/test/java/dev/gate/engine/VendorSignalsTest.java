package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.LimitSpec;
import dev.gate.api.Permit;
import org.junit.jupiter.api.Test;

import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The vendor's signals and rules: Retry-After pauses everyone, the ladder, several rules, minimum spacing. */
class VendorSignalsTest extends OnTwoCopies {

    @Test
    void a429WithRetryAfterStopsAllGrantsForThatLongAcrossBothCopies() throws Exception {
        String limit = "signalled";
        a.limits().put(limit, LimitSpec.of(10, Duration.ofSeconds(1)));
        Permit first = a.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE);
        a.callers().complete(first.callId(), 429, 3);
        Instant signalled = doneAt(first.callId());

        List<Ticket> tickets = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            tickets.add(a.callers().join(limit, CallClass.INTERACTIVE, "web", CallOptions.NONE));
            tickets.add(b.callers().join(limit, CallClass.BACKFILL, "worker", CallOptions.NONE));
        }
        List<Permit> after = new ArrayList<>();
        for (int i = 0; i < tickets.size(); i++) {
            after.add((i % 2 == 0 ? a : b).callers().await(tickets.get(i), Duration.ofSeconds(15)));
        }
        Instant pausedUntil = instant("SELECT paused_until FROM gate_slot WHERE limit_name = '" + limit + "'");
        assertTrue(!pausedUntil.isBefore(signalled.plusSeconds(3)), "paused for as long as the vendor asked");
        for (Permit p : after) {
            assertTrue(!p.grantedAt().isBefore(pausedUntil), "call " + p.callId() + " of " + p.callClass()
                    + " was granted " + Duration.between(signalled, p.grantedAt()) + " after a 3 s Retry-After");
        }
    }

    @Test
    void theLadderEscalatesOnRepeatsAndStepsBackAfterARunOfSuccesses() throws Exception {
        String limit = "ladder";
        a.limits().put(limit, LimitSpec.of(20, Duration.ofSeconds(1)).withCoolDown(Duration.ofMillis(500),
                List.of(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4)), 2));

        assertEquals(1000, pauseAfter(signal(limit)), 150, "first signal: the ladder's first step");
        assertEquals(1, step(limit));
        assertEquals(2000, pauseAfter(signal(limit)), 150, "a repeat climbs to the second step");
        assertEquals(2, step(limit));
        succeed(limit);
        assertEquals(2, step(limit), "one success is not a run");
        succeed(limit);
        assertEquals(1, step(limit), "a run of two steps down");
        succeed(limit);
        succeed(limit);
        assertEquals(0, step(limit));
        assertEquals(1000, pauseAfter(signal(limit)), 150, "after stepping down, a signal starts low again");
    }

    @Test
    void aSecondRuleIsNeverExceededAndHoldsACallTheBeatWouldLetGo() throws Exception {
        String limit = "two-rules";
        // 4 per second and 6 per 3 seconds: the beat follows the slower rule (500 ms)
        a.limits().put(limit, LimitSpec.of(4, Duration.ofSeconds(1))
                .withMoreRules(List.of(new LimitSpec.Rule(6, Duration.ofSeconds(3)))));
        List<Ticket> tickets = new ArrayList<>();
        for (int i = 0; i < 14; i++) {
            tickets.add((i % 2 == 0 ? a : b).callers().join(limit, CallClass.SCHEDULED, "timer", CallOptions.NONE));
        }
        for (int i = 0; i < tickets.size(); i++) {
            (i % 2 == 0 ? a : b).callers().await(tickets.get(i), Duration.ofSeconds(20));
        }
        List<Instant> sends = copies.sends(limit);
        assertTrue(GateCopies.fullestWindow(sends, Duration.ofSeconds(1)) <= 4);
        assertTrue(GateCopies.fullestWindow(sends, Duration.ofSeconds(3)) <= 6);

        // six sends already in the last 3 s (but only two in the last second), the slot long due
        String logged = "two-rules-logged";
        a.limits().put(logged, LimitSpec.of(4, Duration.ofSeconds(1))
                .withMoreRules(List.of(new LimitSpec.Rule(6, Duration.ofSeconds(3)))));
        copies.logSends(logged, 6, Duration.ofMillis(2500), Duration.ofMillis(400));
        copies.slotLongDue(logged);
        Instant oldest = copies.sends(logged).get(0);
        Permit p = b.callers().acquire(logged, CallClass.INTERACTIVE, Duration.ofSeconds(10), "web", CallOptions.NONE);
        assertTrue(!p.grantedAt().isBefore(oldest.plusSeconds(3)), "the 3 s rule held the call "
                + Duration.between(oldest, p.grantedAt()) + " after its oldest send");
    }

    @Test
    void theMinimumSpacingSeparatesEverySend() throws Exception {
        String limit = "spaced";
        Duration spacing = Duration.ofMillis(150);
        a.limits().put(limit, LimitSpec.of(100, Duration.ofSeconds(1)).withMinInterval(spacing));
        List<Ticket> tickets = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            tickets.add((i % 2 == 0 ? a : b).callers().join(limit, CallClass.MANUAL, "ops", CallOptions.NONE));
        }
        for (int i = 0; i < tickets.size(); i++) {
            (i % 2 == 0 ? a : b).callers().await(tickets.get(i), Duration.ofSeconds(10));
        }
        List<Instant> sends = copies.sends(limit);
        for (int i = 1; i < sends.size(); i++) {
            Duration apart = Duration.between(sends.get(i - 1), sends.get(i));
            assertTrue(apart.compareTo(spacing) >= 0, "sends " + (i - 1) + " and " + i + " are " + apart + " apart");
        }
    }

    private long signal(String limit) throws Exception {
        Permit p = a.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(10), "timer", CallOptions.NONE);
        a.callers().complete(p.callId(), 429, null);
        return p.callId();
    }

    private void succeed(String limit) throws Exception {
        Permit p = a.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(10), "timer", CallOptions.NONE);
        a.callers().complete(p.callId(), 200, null);
    }

    /** How long the limit is paused after the call's outcome, in ms (database clock). */
    private long pauseAfter(long callId) throws Exception {
        try (var c = copies.connect(); var s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT (extract(epoch FROM s.paused_until - c.done_at) * 1000)::bigint FROM gate_call c "
                        + "JOIN gate_slot s ON s.limit_name = c.limit_name WHERE c.id = " + callId)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private long step(String limit) throws Exception {
        return copies.count("SELECT cooldown_step FROM gate_slot WHERE limit_name = ?", limit);
    }

    private Instant doneAt(long callId) throws Exception {
        return instant("SELECT done_at FROM gate_call WHERE id = " + callId);
    }

    private Instant instant(String sql) throws Exception {
        try (var c = copies.connect(); var s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getObject(1, java.time.OffsetDateTime.class).toInstant();
        }
    }
}
