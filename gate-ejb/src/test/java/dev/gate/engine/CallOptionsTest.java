package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallEndedException;
import dev.gate.api.CallOptions;
import dev.gate.api.DeadlineException;
import dev.gate.api.Permit;
import dev.gate.domain.Estimate;
import org.junit.jupiter.api.Test;

import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A call's own options: one at a time per concurrency key, deadlines, and its place in the line. */
class CallOptionsTest extends OnTwoCopies {

    @Test
    void twoCallsWithOneKeyNeverOverlapWhileOtherKeysGoAround() throws Exception {
        String limit = "keyed";
        copies.limit(limit, 20, Duration.ofSeconds(1));
        String[] keys = {"store-1", "store-1", "store-2", "store-1", "store-2"};
        List<Ticket> tickets = new ArrayList<>();
        for (int i = 0; i < keys.length; i++) {
            tickets.add((i % 2 == 0 ? a : b).callers().join(limit, CallClass.SCHEDULED, "sync",
                    CallOptions.NONE.withConcurrencyKey(keys[i])));
        }
        // each granted call "talks to the vendor" for 300 ms, then reports its outcome
        List<CompletableFuture<Void>> vendorCalls = new ArrayList<>();
        for (int i = 0; i < tickets.size(); i++) {
            Engine copy = i % 2 == 0 ? a : b;
            Ticket t = tickets.get(i);
            vendorCalls.add(CompletableFuture.runAsync(() -> {
                try {
                    Permit p = copy.callers().await(t, Duration.ofSeconds(20));
                    TimeUnit.MILLISECONDS.sleep(300);
                    copy.callers().complete(p.callId(), 200);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        CompletableFuture.allOf(vendorCalls.toArray(new CompletableFuture[0])).get(30, TimeUnit.SECONDS);

        Map<Long, Instant[]> spans = spans(limit);
        for (String key : List.of("store-1", "store-2")) {
            List<Instant[]> sameKey = new ArrayList<>();
            for (int i = 0; i < keys.length; i++) {
                if (keys[i].equals(key)) {
                    sameKey.add(spans.get(tickets.get(i).callId()));
                }
            }
            sameKey.sort((x, y) -> x[0].compareTo(y[0]));
            for (int i = 1; i < sameKey.size(); i++) {
                assertTrue(!sameKey.get(i)[0].isBefore(sameKey.get(i - 1)[1]),
                        key + ": a call was granted before the previous one with its key was done");
            }
        }
        assertTrue(spans.get(tickets.get(2).callId())[0].isBefore(spans.get(tickets.get(1).callId())[0]),
                "store-2 went around the waiting store-1 call");
    }

    @Test
    void aKeyIsFreedWhenItsGrantedCallsLeaseRunsOut() throws Exception {
        String limit = "keyed-lease";
        copies.limit(limit, 20, Duration.ofSeconds(1));
        CallOptions key = CallOptions.NONE.withConcurrencyKey("source-9").withLease(Duration.ofSeconds(1));
        Permit forgotten = a.callers().acquire(limit, CallClass.MANUAL, Duration.ofSeconds(5), "ops", key);
        Permit next = b.callers().acquire(limit, CallClass.MANUAL, Duration.ofSeconds(10), "ops", key); // never completed
        Duration apart = Duration.between(forgotten.grantedAt(), next.grantedAt());
        assertTrue(apart.compareTo(Duration.ofSeconds(1)) >= 0, "the key was held for the grant's lease: " + apart);
        assertTrue(apart.compareTo(Duration.ofSeconds(4)) < 0, "and freed when it ran out: " + apart);
    }

    @Test
    void aDeadlineThatCannotBeMetIsRefusedAtOnceAndNothingJoins() throws Exception {
        String limit = "slow-deadline";
        copies.limit(limit, 1, Duration.ofSeconds(10));
        a.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE);
        long t0 = System.nanoTime();
        DeadlineException refused = assertThrows(DeadlineException.class, () -> b.callers().acquire(limit,
                CallClass.INTERACTIVE, Duration.ofSeconds(30), "web", CallOptions.NONE.withDeadline(Duration.ofSeconds(2))));
        assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(1).toNanos(), "refused at once");
        assertTrue(refused.estimatedWait().compareTo(Duration.ofSeconds(2)) > 0, refused.getMessage());
        assertEquals(1, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ?", limit));
    }

    @Test
    void aDeadlineIsJudgedByTheUnitsAheadTheVendorsCountAndTheBlockNotByTheCallsAhead() throws Exception {
        String limit = "units-deadline";
        copies.limit(limit, 10, Duration.ofSeconds(20)); // a gap of 2 s
        copies.slotLongDue(limit);
        a.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE);
        a.callers().join(limit, CallClass.SCHEDULED, "bulk", CallOptions.NONE.withCost(8)); // waits for the beat
        DeadlineException refused = assertThrows(DeadlineException.class, () -> b.callers().acquire(limit,
                CallClass.SCHEDULED, Duration.ofSeconds(30), "web", CallOptions.NONE.withDeadline(Duration.ofSeconds(6))));
        assertTrue(refused.estimatedWait().compareTo(Duration.ofSeconds(16)) >= 0, "eight units ahead, a gap each, "
                + "not one gap for the call: " + refused.getMessage());

        String held = "held-deadline"; // the vendor said nothing is left for a minute
        copies.limit(held, 1000, Duration.ofSeconds(120));
        Permit p = a.callers().acquire(held, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE);
        a.callers().complete(p.callId(), "timer", 200, null, 0, 60L, null);
        DeadlineException vendor = assertThrows(DeadlineException.class, () -> b.callers().acquire(held,
                CallClass.INTERACTIVE, Duration.ofSeconds(30), "web", CallOptions.NONE.withDeadline(Duration.ofSeconds(5))));
        assertTrue(vendor.estimatedWait().compareTo(Duration.ofSeconds(50)) > 0, "not before the vendor's reset: "
                + vendor.getMessage());

        String daily = "daily-deadline"; // three a day from ten minutes ago, all sent: not before the next day
        java.time.LocalTime at = java.time.LocalTime.now(java.time.ZoneOffset.UTC).minusMinutes(10).withSecond(0)
                .withNano(0);
        a.limits().put(daily, dev.gate.api.LimitSpec.of(3, Duration.ofDays(1)).withAligned(java.time.ZoneOffset.UTC,
                at));
        copies.logSends(daily, 3, Duration.ofMinutes(5), Duration.ZERO);
        DeadlineException tomorrow = assertThrows(DeadlineException.class, () -> b.callers().acquire(daily,
                CallClass.INTERACTIVE, Duration.ofSeconds(30), "web", CallOptions.NONE.withDeadline(Duration.ofHours(1))));
        assertTrue(tomorrow.estimatedWait().compareTo(Duration.ofHours(23)) > 0, "not before the next day's block: "
                + tomorrow.getMessage());
    }

    @Test
    void aDeadlineAndAPositionCountOnlyTheCallsTheGrantPassWouldSendFirst() throws Exception {
        // on the old code each was judged by the strict order: the call was refused for a deadline the pass met
        // where programs take turns: web's first call goes at the next slot, whatever worker has waiting
        String fair = "turns-deadline";
        a.limits().put(fair, dev.gate.api.LimitSpec.of(1, Duration.ofSeconds(3)).withFairPrograms(true));
        a.callers().acquire(fair, CallClass.SCHEDULED, Duration.ofSeconds(5), "worker", CallOptions.NONE);
        for (int i = 0; i < 5; i++) {
            a.callers().join(fair, CallClass.SCHEDULED, "worker", CallOptions.NONE);
        }
        Permit turn = b.callers().acquire(fair, CallClass.SCHEDULED, Duration.ofSeconds(10), "web",
                CallOptions.NONE.withDeadline(Duration.ofSeconds(5)));
        assertEquals(fair, turn.limit(), "granted within its deadline, on the turns");

        // a call ahead whose concurrency key another call holds is passed over: it is not counted
        String keys = "held-key-deadline";
        copies.limit(keys, 1, Duration.ofSeconds(3));
        a.callers().acquire(keys, CallClass.SCHEDULED, Duration.ofSeconds(5), "sync",
                CallOptions.NONE.withConcurrencyKey("account-7").withLease(Duration.ofSeconds(60))); // held a minute
        for (int i = 0; i < 5; i++) {
            a.callers().join(keys, CallClass.SCHEDULED, "sync", CallOptions.NONE.withConcurrencyKey("account-7"));
        }
        Permit around = b.callers().acquire(keys, CallClass.SCHEDULED, Duration.ofSeconds(10), "web",
                CallOptions.NONE.withDeadline(Duration.ofSeconds(5)));
        assertEquals(keys, around.limit(), "granted within its deadline, around the held key's calls");

        // the starvation guard lifts a waiting backfill above the scheduled calls that joined after it: none of them
        // is ahead of it any more
        String guarded = "guarded-position";
        a.limits().put(guarded, dev.gate.api.LimitSpec.of(1, Duration.ofSeconds(30))
                .withAging(Duration.ofMillis(300), CallClass.MANUAL));
        a.callers().acquire(guarded, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE);
        Ticket old = a.callers().join(guarded, CallClass.BACKFILL, "history", CallOptions.NONE);
        for (int i = 0; i < 3; i++) {
            b.callers().join(guarded, CallClass.SCHEDULED, "timer", CallOptions.NONE);
        }
        Estimate before = b.programs().estimate(old.callId()).orElseThrow();
        assertEquals(0, before.position(), "the guard lifts it before any later call: none is surely ahead");
    }

    @Test
    void aDeadlineThatPassesWhileWaitingExpiresTheCallWhichIsNeverGranted() throws Exception {
        String limit = "missed-deadline";
        copies.limit(limit, 2, Duration.ofSeconds(8));
        // the window is full from the log, but the beat says go: the estimate cannot see it, the cap holds the call
        copies.logSends(limit, 2, Duration.ofSeconds(2), Duration.ofSeconds(1));
        copies.slotLongDue(limit);
        Ticket hurried = a.callers().join(limit, CallClass.INTERACTIVE, "web",
                CallOptions.NONE.withDeadline(Duration.ofSeconds(2)));
        ExecutionException ended = assertThrows(ExecutionException.class,
                () -> hurried.granted().get(10, TimeUnit.SECONDS));
        assertTrue(ended.getCause() instanceof CallEndedException, String.valueOf(ended.getCause()));
        assertEquals(1, copies.count("SELECT count(*) FROM gate_call WHERE id = ? AND state = 'EXPIRED'",
                hurried.callId()));
        GateCopies.await("the window to free", Duration.ofSeconds(10),
                () -> count("SELECT count(*) FROM gate_send WHERE limit_name = '" + limit
                        + "' AND sent_at > clock_timestamp() - interval '8 seconds'") < 2);
        a.callers().acquire(limit, CallClass.BACKFILL, Duration.ofSeconds(10), "worker", CallOptions.NONE);
        assertEquals(0, copies.count("SELECT count(*) FROM gate_send WHERE call_id = ?", hurried.callId()),
                "an expired call is never granted");
    }

    @Test
    void aWaitingCallKnowsItsPositionAndWhenToExpectItsGrant() throws Exception {
        String limit = "estimated";
        copies.limit(limit, 1, Duration.ofSeconds(2));
        a.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE);
        List<Ticket> waiting = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiting.add(b.callers().join(limit, CallClass.SCHEDULED, "timer", CallOptions.NONE));
        }
        Ticket urgent = a.callers().join(limit, CallClass.INTERACTIVE, "web", CallOptions.NONE);
        Estimate first = b.programs().estimate(urgent.callId()).orElseThrow();
        assertEquals(0, first.position(), "a higher class is ahead of everyone who waits");
        Instant previous = first.grantAt();
        for (int i = 0; i < waiting.size(); i++) {
            Estimate e = b.programs().estimate(waiting.get(i).callId()).orElseThrow();
            assertEquals(i + 1, e.position());
            assertEquals(Duration.ofMillis(2_010), Duration.between(previous, e.grantAt()),
                    "one gap per call ahead (the 2 s window widened by its 10 ms receipt margin)");
            previous = e.grantAt();
        }
    }

    private long count(String sql) {
        try {
            return copies.count(sql);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private Map<Long, Instant[]> spans(String limit) throws Exception {
        Map<Long, Instant[]> spans = new HashMap<>();
        try (var c = copies.connect(); var ps = c.prepareStatement(
                "SELECT id, granted_at, done_at FROM gate_call WHERE limit_name = ?")) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    spans.put(rs.getLong(1), new Instant[]{rs.getObject(2, OffsetDateTime.class).toInstant(),
                            rs.getObject(3, OffsetDateTime.class).toInstant()});
                }
            }
        }
        return spans;
    }
}
