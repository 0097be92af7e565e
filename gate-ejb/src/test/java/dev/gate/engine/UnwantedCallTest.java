package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallEndedException;
import dev.gate.api.CallOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A caller that may stop wanting its call while it waits (a batch job asked to stop): once it says so, its call
 * leaves the line (CANCELLED, never granted) and it hears CallEndedException, long before its own wait would end.
 */
class UnwantedCallTest extends OnTwoCopies {

    @Test
    void aCallNoLongerWantedLeavesTheLineWithinAboutASecond() throws Exception {
        String limit = "unwanted";
        copies.limit(limit, 1, Duration.ofMinutes(10));
        a.callers().acquire(limit, CallClass.SCHEDULED, Duration.ofSeconds(5), "timer", CallOptions.NONE); // slot taken
        AtomicBoolean wanted = new AtomicBoolean(true);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<dev.gate.api.Permit> waiting = pool.submit(() -> a.callers().acquire(limit, CallClass.BACKFILL,
                Duration.ofMinutes(5), "batch:backfill-history", CallOptions.NONE, wanted::get));
        GateCopies.await("the call to wait in the line", Duration.ofSeconds(5), () -> count(limit) == 1);
        long t0 = System.nanoTime();
        wanted.set(false);
        java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> waiting.get(10, TimeUnit.SECONDS));
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        pool.shutdown();
        assertInstanceOf(CallEndedException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("no longer wants it"), e.getCause().getMessage());
        assertTrue(took.compareTo(Duration.ofSeconds(5)) < 0, "left within a few seconds, not at its 5 min: " + took);
        assertEquals(0, count(limit), "nothing left waiting");
        assertEquals(1, copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND state = 'CANCELLED'",
                limit));
    }

    private long count(String limit) {
        try {
            return copies.count("SELECT count(*) FROM gate_call WHERE limit_name = ? AND state = 'WAITING'", limit);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
