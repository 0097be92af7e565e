package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.LimitSpec;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A burst allowance, on the real clock: after idle time up to B calls go back to back, then the beat resumes; no
 * window of any rule ever holds more than its calls.
 */
class BurstTest extends OnOneCopy {

    @Test
    void afterIdleTimeFiveGoAtOnceThenTheBeat() throws Exception {
        String limit = "bursty";
        // a gap of a second: the burst and the beat are told apart by seconds, however slowly this box joins calls
        Duration gap = Duration.ofSeconds(1);
        gate.limits().put(limit, LimitSpec.of(10, gap.multipliedBy(10)).withBurst(5));
        copies.slotLongDue(limit); // idle for an hour
        List<Long> ids = joinOneAfterAnother(limit, 8);
        List<Instant> granted = grantTimes(ids);
        System.out.println("burst of 5 at 1/s: grants at " + offsets(granted) + " ms");
        // five as they come (each joins and is granted at once): the beat held none of them back, each went for a
        // slot already due as it joined (paced, the second's slot would be a gap after the first's send)
        assertEquals(5, joinedWithTheirSlotDue(ids.subList(0, 5)), "the five of the burst went at once");
        assertTrue(Duration.between(granted.get(0), granted.get(4)).compareTo(gap) < 0,
                "the five within one gap, not the beat's four: " + offsets(granted));
        // then the beat: the burst is counted from its first send (GCRA), so the sixth is due one gap after the
        // first, the seventh two, and so on
        for (int i = 5; i < 8; i++) {
            Duration after = Duration.between(granted.get(0), granted.get(i));
            assertTrue(after.compareTo(gap.multipliedBy(i - 4)) >= 0, "after the burst, the beat: " + offsets(granted));
        }
    }

    @Test
    void aFreshLimitAndAFreshKeyStartWithTheirWholeBurst() throws Exception {
        // a fresh token bucket starts full: a limit declared a moment ago, and a key its template just opened, take
        // their burst at once (on the old code a fresh limit took one, then told the caller to come back in 720 s);
        // the window still counts every send: the sixth waits for the hour
        gate.limits().put("fresh", LimitSpec.of(5, Duration.ofHours(1)).withBurst(5));
        gate.limits().put("fresh-keyed", LimitSpec.of(5, Duration.ofHours(1)).withBurst(5).withKeyed(true));
        for (CallOptions options : List.of(CallOptions.NONE, CallOptions.NONE.withLimitKey("user-1"))) {
            String limit = options.limitKey() == null ? "fresh" : "fresh-keyed";
            for (int i = 1; i <= 5; i++) {
                assertTrue(gate.callers().tryConsume(limit, CallClass.INTERACTIVE, "api", options).isGranted(),
                        limit + ": consumption " + i + " of the burst of 5");
            }
            dev.gate.api.Attempt sixth = gate.callers().tryConsume(limit, CallClass.INTERACTIVE, "api", options);
            assertTrue(!sixth.isGranted() && sixth.retryAfter().compareTo(Duration.ofMinutes(59)) > 0,
                    limit + ": the sixth waits for the window of an hour: " + sixth.retryAfter());
        }
        // and with no burst, a fresh limit still sends one, then keeps the beat
        gate.limits().put("fresh-paced", LimitSpec.of(5, Duration.ofHours(1)));
        assertTrue(gate.callers().tryConsume("fresh-paced", CallClass.INTERACTIVE, "api", CallOptions.NONE)
                .isGranted());
        dev.gate.api.Attempt second = gate.callers().tryConsume("fresh-paced", CallClass.INTERACTIVE, "api",
                CallOptions.NONE);
        assertTrue(!second.isGranted() && second.retryAfter().compareTo(Duration.ofMinutes(11)) > 0,
                "a gap of 720 s: " + second.retryAfter());
    }

    @Test
    void anOperatorsRePaceBelowTheBurstLowersTheBurstToTheNewCalls() throws Exception {
        // found by the random histories (seed 60044): a re-pace to 2 calls of a limit with a burst of 3 failed with
        // the database's check constraint, and the operator could not slow the limit down
        String limit = "bursty-repaced";
        gate.limits().put(limit, LimitSpec.of(10, Duration.ofSeconds(10)).withBurst(5));
        gate.limits().rePace(limit, dev.gate.rules.Pace.of(2, 1000), "ops");
        assertEquals(1, copies.count("SELECT count(*) FROM gate_limit WHERE name = ? AND calls = 2 AND burst = 2",
                limit), "the burst fits the new calls");
        assertEquals(1, copies.count("SELECT count(*) FROM gate_action WHERE action = 'change-limit' AND detail = "
                + "'2 per 1 s, its burst lowered to 2 (at most the calls)'"), "recorded with the change");
        gate.limits().rePace(limit, dev.gate.rules.Pace.of(4, 1000), "ops");
        assertEquals(1, copies.count("SELECT count(*) FROM gate_limit WHERE name = ? AND calls = 4 AND burst = 2",
                limit), "a re-pace upwards leaves the burst as it is");
        assertTrue(gate.callers().tryNow(limit, CallClass.INTERACTIVE, "a", CallOptions.NONE).isGranted());
    }

    @Test
    void aBurstNeverFillsAnyRulesWindowBeyondItsCalls() throws Exception {
        String limit = "bursty-capped";
        gate.limits().put(limit, LimitSpec.of(10, Duration.ofSeconds(1)).withBurst(5)
                .withMoreRules(List.of(new LimitSpec.Rule(3, Duration.ofSeconds(2)))));
        copies.slotLongDue(limit);
        List<Long> ids = joinOneAfterAnother(limit, 4);
        List<Instant> granted = grantTimes(ids);
        System.out.println("burst of 5 under 3 per 2 s: grants at " + offsets(granted) + " ms");
        // three at once: none waited for the beat (paced, the second would wait a gap, 100 ms, for its slot)
        assertEquals(3, joinedWithTheirSlotDue(ids.subList(0, 3)), "three at once");
        assertTrue(Duration.between(granted.get(0), granted.get(3)).toMillis() >= 2_000,
                "the fourth waits for the 3-per-2-s window: " + offsets(granted));
        assertEquals(3, GateCopies.fullestWindow(granted, Duration.ofSeconds(2)));
    }

    @Test
    void anAdaptiveLimitCutBelowItsBurstHoldsTheCutRateInEveryWindow() throws Exception {
        String limit = "bursty-cut";
        gate.limits().put(limit, LimitSpec.of(10, Duration.ofSeconds(1)).withBurst(10).withAdaptiveRate(true));
        // the vendor said "slow down" a moment ago: the rate in force is 3 a second, whatever the burst allows
        copies.sql("UPDATE gate_slot SET adaptive_calls = 3, adaptive_cut_at = clock_timestamp(), "
                + "next_slot_at = clock_timestamp() - interval '1 hour' WHERE limit_name = ?", limit);
        List<Instant> granted = grantTimes(joinOneAfterAnother(limit, 6));
        System.out.println("burst of 10 at an adaptive rate cut to 3/s: grants at " + offsets(granted) + " ms");
        // every join takes the fast path (join and grant in one transaction): its window check must count 3, not 10
        assertEquals(3, GateCopies.fullestWindow(granted, Duration.ofSeconds(1)), offsets(granted).toString());
    }

    /** {@code n} calls join, one after another as fast as this box goes; once all are granted, their ids in order. */
    private List<Long> joinOneAfterAnother(String limit, int n) throws Exception {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(gate.programs().submit("p", limit, CallClass.SCHEDULED, CallOptions.NONE, null).call().id());
        }
        GateCopies.await("all granted", Duration.ofSeconds(10), () -> ids.stream().allMatch(
                id -> copies.state(id).equals("GRANTED")));
        return ids;
    }

    /** The calls' grant times, in order. */
    private List<Instant> grantTimes(List<Long> ids) throws Exception {
        List<Instant> out = new ArrayList<>();
        for (long id : ids) {
            out.add(copies.ids("SELECT (extract(epoch FROM granted_at) * 1000000)::bigint FROM gate_call WHERE id = ?",
                    id).stream().map(us -> Instant.ofEpochSecond(0, us * 1000)).findFirst().orElseThrow());
        }
        out.sort(null);
        return out;
    }

    /**
     * How many of the calls went for a beat slot already due when they joined (the send log's slot against the call's
     * join, both on the database's clock): the calls the beat did not hold back, however slowly they joined.
     */
    private long joinedWithTheirSlotDue(List<Long> ids) throws Exception {
        long due = 0;
        for (long id : ids) {
            due += copies.count("SELECT count(*) FROM gate_send s JOIN gate_call c ON c.id = s.call_id "
                    + "WHERE c.id = ? AND s.slot_at <= c.enqueued_at", id);
        }
        return due;
    }

    private static List<Long> offsets(List<Instant> granted) {
        return granted.stream().map(t -> Duration.between(granted.get(0), t).toMillis()).toList();
    }
}
