package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.Permit;
import dev.gate.api.CallState;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every granted call ends: a grant carries a lease, and a program that never reports (crashed, cut off) loses it.
 * Its call becomes ABANDONED, which frees its dedupe and concurrency keys; a late outcome still counts.
 */
class AbandonedGrantTest extends OnOneCopy {

    @Test
    void aGrantWhoseOwnerNeverReportsFreesItsKeysAfterItsLease() throws Exception {
        String limit = "crashy";
        copies.limit(limit, 100, Duration.ofSeconds(1));
        Duration lease = Duration.ofSeconds(1);
        CallOptions keyed = CallOptions.NONE.withLease(lease).withConcurrencyKey("account-7");
        ProgramCalls.Submitted first = gate.programs().submit("crashed", limit, CallClass.SCHEDULED, keyed, "report-7");
        GateCopies.await("the first call's grant", Duration.ofSeconds(5),
                () -> state(first.call().id()) == CallState.GRANTED);

        // while its lease runs, the key is taken: a submission joins it, a keyed call waits
        ProgramCalls.Submitted joiner = gate.programs().submit("other", limit, CallClass.SCHEDULED, CallOptions.NONE, "report-7");
        assertTrue(joiner.joined());
        assertEquals(first.call().id(), joiner.call().id());
        ProgramCalls.Submitted keyedWaiter = gate.programs().submit("other", limit, CallClass.SCHEDULED,
                CallOptions.NONE.withConcurrencyKey("account-7"), null);
        assertEquals(CallState.WAITING, state(keyedWaiter.call().id()), "the concurrency key is held");

        // its program never reports: after the lease the call is ABANDONED and both keys are free
        GateCopies.await("the unreported grant to be abandoned", lease.plusSeconds(3),
                () -> state(first.call().id()) == CallState.ABANDONED);
        GateCopies.await("the keyed call to be granted", Duration.ofSeconds(3),
                () -> state(keyedWaiter.call().id()) == CallState.GRANTED);
        ProgramCalls.Submitted fresh = gate.programs().submit("other", limit, CallClass.SCHEDULED, CallOptions.NONE, "report-7");
        assertFalse(fresh.joined(), "a new submission with the key makes a new call");
        assertNotEquals(first.call().id(), fresh.call().id());

        // a late outcome still counts (a 429 must not lose its cool-down)
        assertTrue(gate.programs().outcome("crashed", first.call().id(), 429, 3));
        assertEquals(CallState.DONE, state(first.call().id()));
        assertEquals(1, copies.count("SELECT count(*) FROM gate_slot WHERE limit_name = ? "
                + "AND paused_until > clock_timestamp() + interval '1 s'", limit), "the late 429 paused the limit");
    }

    @Test
    void aGrantGivenUpByItsCallerFreesItsKeysAtOnceNotAtItsLeasesEnd() throws Exception {
        String limit = "given-up";
        copies.limit(limit, 100, Duration.ofSeconds(1));
        CallOptions keyed = CallOptions.NONE.withLease(Duration.ofSeconds(60)).withConcurrencyKey("account-9");
        Permit permit = gate.callers().acquire(limit, CallClass.BACKFILL, Duration.ofSeconds(5), "batch:x", keyed);
        ProgramCalls.Submitted keyedWaiter = gate.programs().submit("other", limit, CallClass.SCHEDULED,
                CallOptions.NONE.withConcurrencyKey("account-9"), null);
        assertEquals(CallState.WAITING, state(keyedWaiter.call().id()), "the concurrency key is held");

        // the caller's own work failed before the vendor: it gives the grant up, and the key is free well before 60 s
        assertTrue(gate.callers().abandon(permit));
        assertEquals(CallState.ABANDONED, state(permit.callId()));
        GateCopies.await("the keyed call to be granted", Duration.ofSeconds(5),
                () -> state(keyedWaiter.call().id()) == CallState.GRANTED);
        assertFalse(gate.callers().abandon(permit), "only a granted call is given up");
        gate.callers().complete(keyedWaiter.call().id(), 200);
        assertFalse(gate.callers().abandon(new Permit(keyedWaiter.call().id(), limit, CallClass.SCHEDULED,
                permit.enqueuedAt(), permit.grantedAt())), "a done call stays done");
        assertEquals(CallState.DONE, state(keyedWaiter.call().id()));
    }

    private CallState state(long id) {
        return CallState.valueOf(copies.state(id));
    }
}
