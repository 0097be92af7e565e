package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.Permit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Restarting a gate never gives it a fresh budget: a new instance counts the send log (real clock). */
class RestartTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @Test
    void aFreshInstanceReadsTheSendLogAndWaitsForTheWindow() throws Exception {
        String limit = "restarted";
        Duration window = Duration.ofSeconds(3);
        copies.limit(limit, 4, window);
        // let four sends go out close together, as after a burst of late slots: the window is now full
        copies.slotLongDue(limit);
        Engine before = copies.start("before-restart");
        List<Permit> used = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            used.add(before.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(10), "timer", CallOptions.NONE));
        }
        before.stop();
        copies.slotLongDue(limit); // even a slot row that says "go" must not open the window

        Engine after = copies.start("after-restart");
        Permit next = after.callers().acquire(limit, CallClass.INTERACTIVE, Duration.ofSeconds(10), "web", CallOptions.NONE);

        Instant oldest = used.get(0).grantedAt();
        assertTrue(!next.grantedAt().isBefore(oldest.plus(window)), "the restarted gate sent "
                + Duration.between(oldest, next.grantedAt()) + " after the oldest send of a " + window + " window");
        assertTrue(GateCopies.fullestWindow(copies.sends(limit), window) <= 4);
    }
}
