package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.Permit;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The send log decides as well as the beat: a full window makes the next call wait until its oldest send leaves. */
class FullWindowTest extends OnOneCopy {

    @Test
    void oneCallMoreThanTheWindowAllowsWaitsItsTurnThenGoes() throws Exception {
        String limit = "five";
        Duration window = Duration.ofSeconds(2);
        copies.limit(limit, 5, window);
        List<Ticket> tickets = GateCopies.join(gate, limit, 6, CallClass.MANUAL, "ops");
        List<Permit> permits = new ArrayList<>();
        for (Ticket t : tickets) {
            permits.add(gate.callers().await(t, Duration.ofSeconds(10)));
        }
        Instant first = permits.get(0).grantedAt();
        Instant sixth = permits.get(5).grantedAt();
        assertTrue(!sixth.isBefore(first.plus(window)),
                "the sixth call went " + Duration.between(first, sixth) + " after the first; the window is " + window);
        assertTrue(GateCopies.fullestWindow(copies.sends(limit), window) <= 5);
    }

    @Test
    void aFullLogHoldsACallEvenWhenTheBeatSaysGo() throws Exception {
        String limit = "logged";
        Duration window = Duration.ofSeconds(3);
        copies.limit(limit, 3, window);
        // three sends already logged in the last window (another instance, or before a restart); the slot is long due
        copies.logSends(limit, 3, Duration.ofSeconds(2), Duration.ofMillis(500));
        copies.slotLongDue(limit);
        Instant oldest = copies.sends(limit).get(0);

        Permit permit = gate.callers().acquire(limit, CallClass.INTERACTIVE, Duration.ofSeconds(10), "web", CallOptions.NONE);

        assertTrue(!permit.grantedAt().isBefore(oldest.plus(window)),
                "granted " + Duration.between(oldest, permit.grantedAt()) + " after the oldest logged send; the window is "
                        + window);
        assertTrue(permit.grantedAt().isBefore(oldest.plus(window).plusSeconds(1)),
                "it goes as soon as the oldest send leaves the window: " + Duration.between(oldest, permit.grantedAt()));
        assertTrue(GateCopies.fullestWindow(copies.sends(limit), window) <= 3);
    }
}
