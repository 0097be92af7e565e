package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.Permit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Waiting calls live by their leases: a dead copy's calls expire, are never granted, and the line moves on. */
class LeaseTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @Test
    void aKilledCopysCallsExpireAndAreNeverGrantedWhileALiveCopysCallsAreRenewed() throws Exception {
        String limit = "slow";
        copies.limit(limit, 1, Duration.ofSeconds(6));
        Engine alive = copies.start("alive");
        Engine doomed = copies.start("doomed");
        Permit first = alive.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE);

        Duration lease = Duration.ofSeconds(1);
        List<Long> doomedCalls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            doomedCalls.add(doomed.callers().join(limit, CallClass.INTERACTIVE, "web", lease).callId());
        }
        Ticket survivor = alive.callers().join(limit, CallClass.BACKFILL, "worker", lease);
        doomed.halt(); // as if its process died: nobody renews its calls any more

        GateCopies.await("the dead copy's calls to expire", Duration.ofSeconds(10), () -> expired(doomedCalls) == 3);

        Permit next = alive.callers().await(survivor, Duration.ofSeconds(15));
        assertTrue(!next.grantedAt().isBefore(first.grantedAt().plusSeconds(6)), "the slot came when the window freed");
        assertEquals(0, copies.count("SELECT count(*) FROM gate_send WHERE call_id = ANY (?)",
                (Object) doomedCalls.toArray(new Long[0])), "an expired call is never granted");
        assertEquals(3, expired(doomedCalls));
        assertEquals("GRANTED", state(survivor.callId()),
                "a call whose copy renews it outlives its 1 s lease through a 6 s wait");
    }

    private long expired(List<Long> ids) {
        try {
            return copies.count("SELECT count(*) FROM gate_call WHERE id = ANY (?) AND state = 'EXPIRED'",
                    (Object) ids.toArray(new Long[0]));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private String state(long id) throws Exception {
        try (var c = copies.connect(); var ps = c.prepareStatement("SELECT state FROM gate_call WHERE id = ?")) {
            ps.setLong(1, id);
            try (var rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }
}
