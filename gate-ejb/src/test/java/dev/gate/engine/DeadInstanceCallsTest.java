package dev.gate.engine;

import dev.gate.api.Attempt;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.LimitSpec;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A gate instance that dies leaves its callers' waiting calls in the line until their leases run out (minutes, for a
 * long lease). The grant pass passes them over at once (nobody is left to take their grant); every other reading of
 * the line must too: a try's "calls ahead", the line's caps, the deadline's estimate, a parent's line under a key's
 * try. Each case here failed on the old code, which counted the dead calls and locked the living out until the
 * leases lapsed. The copy dies as a crashed process does: its timers stop and its database sessions end, which frees
 * its instance lock (a real advisory lock, held by its listener's session).
 */
class DeadInstanceCallsTest extends OnTwoCopies {

    private static final CallOptions LONG_LEASE = CallOptions.NONE.withLease(Duration.ofSeconds(120));

    @Test
    void aDeadInstancesWaitingCallsHoldNoTryNoJoinNoDeadlineAndNoKeyBack() throws Exception {
        a.limits().put("tries", LimitSpec.of(1, Duration.ofSeconds(10)));
        a.limits().put("capped", LimitSpec.of(10, Duration.ofSeconds(1)).withMaxWaiting(1, null));
        a.limits().put("deadlines", LimitSpec.of(1, Duration.ofSeconds(10)));
        a.limits().put("vendor", LimitSpec.of(10, Duration.ofSeconds(1)));
        a.limits().put("stores", LimitSpec.of(10, Duration.ofSeconds(1)).withKeyed(true).withParent("vendor"));
        for (String limit : new String[] {"tries", "capped", "deadlines", "vendor"}) {
            a.operators().pause(limit, Duration.ofMinutes(5), "ops");
            // a backfill job's call on copy b, its lease two minutes
            b.callers().join(limit, CallClass.BACKFILL, "job", LONG_LEASE);
        }
        assertEquals(4, copies.count("SELECT count(*) FROM gate_call WHERE state = 'WAITING'"));
        b.halt(); // killed: its heartbeat stops, and with its sessions its instance lock goes
        b.release();
        for (String limit : new String[] {"tries", "deadlines", "vendor"}) {
            a.operators().resume(limit, "ops");
        }

        Attempt tried = tryWithin("tries", CallOptions.NONE);
        assertTrue(tried.isGranted(), "a try is not held back by a dead instance's call: " + tried.retryAfter());

        // the line of one place is taken only by a dead call: a join gets the place (the limit is still paused)
        ProgramCalls.Submitted joined = a.programs().submit("web", "capped", CallClass.BACKFILL, CallOptions.NONE,
                null);
        assertEquals("WAITING", joined.call().state().name());

        // the estimate counts no dead call ahead: a gap of 10 s would miss a deadline of 3 s
        Ticket timely = a.callers().join("deadlines", CallClass.BACKFILL, "web",
                CallOptions.NONE.withDeadline(Duration.ofSeconds(3)));
        a.callers().await(timely, Duration.ofSeconds(3));

        // a key's try under a parent whose own line holds only a dead call
        Attempt keyed = tryWithin("stores", CallOptions.NONE.withLimitKey("store-1"));
        assertTrue(keyed.isGranted(), "a key's try is not held back by a dead call in its parent's line: "
                + keyed.retryAfter());

        assertEquals(0, copies.count("SELECT count(*) FROM gate_call WHERE owner = ? AND granted_at IS NOT NULL",
                "DeadInstanceCallsTest-b"), "the dead instance's calls are never granted");
    }

    /**
     * A try as a caller makes it: told "not now", it comes back when told to, for a second at most (a grant pass that
     * holds the slot's lock this moment answers "busy, in 20 ms"; a call counted ahead answers a gap or more).
     */
    private Attempt tryWithin(String limit, CallOptions options) throws Exception {
        long until = System.nanoTime() + Duration.ofSeconds(1).toNanos();
        Attempt tried = a.callers().tryNow(limit, CallClass.BACKFILL, "web", options);
        while (!tried.isGranted() && System.nanoTime() + tried.retryAfter().toNanos() - until < 0) {
            Thread.sleep(Math.max(1, tried.retryAfter().toMillis()));
            tried = a.callers().tryNow(limit, CallClass.BACKFILL, "web", options);
        }
        return tried;
    }
}
