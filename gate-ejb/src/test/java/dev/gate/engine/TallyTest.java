package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.Permit;
import dev.gate.domain.Grant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operators' counters hear of exactly what happened in the line, once each: the grants this instance made (with
 * their waits), the calls it expired, the grants it ended as abandoned.
 */
class TallyTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    /** A tally that writes down what it hears. */
    static final class Heard implements Tally {
        final List<Grant> grants = new CopyOnWriteArrayList<>();
        final List<String> expired = new CopyOnWriteArrayList<>();
        final List<String> abandoned = new CopyOnWriteArrayList<>();
        final java.util.concurrent.atomic.AtomicInteger turnedAway = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public void turnedAwayPaused() {
            turnedAway.incrementAndGet();
        }

        @Override
        public void granted(Grant grant) {
            grants.add(grant);
        }

        @Override
        public void expired(String limit, CallClass callClass, String why) {
            expired.add(limit + "/" + callClass + "/" + why);
        }

        @Override
        public void abandoned(String limit, CallClass callClass) {
            abandoned.add(limit + "/" + callClass);
        }
    }

    @Test
    void grantsExpiriesAndAbandonedGrantsAreEachToldOnce() throws Exception {
        copies.limit("tallied", 1000, Duration.ofSeconds(1));
        copies.limit("tallied-full", 1, Duration.ofMinutes(1));
        Heard heard = new Heard();
        Engine counted = copies.start("counted", heard);
        Engine doomed = copies.start("doomed-tally");

        // a grant that nobody completes within its 1 s lease: abandoned
        Permit kept = counted.callers().acquire("tallied", CallClass.MANUAL, Duration.ofSeconds(5), "ops",
                CallOptions.NONE.withLease(Duration.ofSeconds(1)));
        Permit done = counted.callers().acquire("tallied", CallClass.INTERACTIVE, Duration.ofSeconds(5), "web",
                CallOptions.NONE);
        counted.callers().complete(done.callId(), 200);
        Permit full = counted.callers().acquire("tallied-full", CallClass.SCHEDULED, Duration.ofSeconds(5), "timer",
                CallOptions.NONE);
        counted.callers().complete(full.callId(), 200);
        // two calls of a copy that dies: their leases run out while they wait (the window is full for a minute)
        for (int i = 0; i < 2; i++) {
            Ticket t = doomed.callers().join("tallied-full", CallClass.BACKFILL, "worker", Duration.ofSeconds(1));
            assertTrue(t.callId() > 0);
        }
        doomed.halt();

        GateCopies.await("the expiries and the abandoned grant to be told", Duration.ofSeconds(15),
                () -> heard.expired.size() >= 2 && !heard.abandoned.isEmpty());
        assertEquals(List.of(kept.callId(), done.callId(), full.callId()), heard.grants.stream().map(Grant::callId).toList(),
                "each grant once, in grant order");
        assertTrue(heard.grants.stream().allMatch(g -> !g.grantedAt().isBefore(g.enqueuedAt())),
                "a wait is never negative");
        assertEquals(List.of("tallied-full/BACKFILL/lease", "tallied-full/BACKFILL/lease"), heard.expired);
        assertEquals(List.of("tallied/MANUAL"), heard.abandoned);
        assertEquals(2, copies.count("SELECT count(*) FROM gate_call WHERE state = 'EXPIRED'"));
        assertEquals(1, copies.count("SELECT count(*) FROM gate_call WHERE state = 'ABANDONED'"));
    }

    @Test
    void onlyCallsTurnedAwayCountNotStatusReads() throws Exception {
        copies.limit("cut-tally", 10, Duration.ofSeconds(1));
        dev.gate.dev.TcpProxy proxy = copies.proxy();
        Heard heard = new Heard();
        Engine gate = copies.start("behind-proxy-tally", copies.poolThrough(proxy), heard);
        proxy.cut();
        assertThrows(dev.gate.api.GatePausedException.class, () -> gate.callers().acquire("cut-tally",
                CallClass.MANUAL, Duration.ofSeconds(2), "web", CallOptions.NONE));
        for (int i = 0; i < 3; i++) { // the status page and the metrics read while paused: not calls
            assertThrows(dev.gate.api.GateException.class, () -> gate.limits().status());
        }
        assertThrows(dev.gate.api.GatePausedException.class, () -> gate.callers().acquire("cut-tally",
                CallClass.MANUAL, Duration.ofSeconds(2), "web", CallOptions.NONE));
        assertEquals(2, heard.turnedAway.get(), "the two calls, and nothing else");
        proxy.restore();
    }
}
