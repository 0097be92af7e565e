package dev.gate.batch;

import dev.gate.api.GateBusyException;
import dev.gate.api.GatePausedException;
import dev.gate.api.UnknownLimitException;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A batch step waits out a paused or busy gate, a full line and a lost database; anything else fails at once. */
class PatienceTest {

    @Test
    void aPausedOrBusyGateAFullLineAndALostDatabaseAreWaitedOut() throws Exception {
        AtomicInteger tries = new AtomicInteger();
        String answer = new Patience(() -> false, "job test").outlast("a step", () -> switch (tries.incrementAndGet()) {
            case 1 -> throw new GatePausedException("connection refused");
            case 2 -> throw new GateBusyException("lock timeout");
            case 3 -> throw new SQLException("I/O error", "08006");
            case 4 -> throw new jakarta.ejb.EJBException(new SQLException("IJ000453: no managed connection"));
            case 5 -> throw new dev.gate.api.LineFullException("vendor-a", "its line holds maxWaiting calls",
                    java.time.Duration.ofMillis(300));
            default -> "done";
        });
        assertEquals("done", answer);
        assertEquals(6, tries.get());
    }

    @Test
    void anythingElseFailsAtOnce() {
        AtomicInteger tries = new AtomicInteger();
        assertThrows(UnknownLimitException.class, () -> new Patience(() -> false, "job test").outlast("a step", () -> {
            tries.incrementAndGet();
            throw new UnknownLimitException("gone");
        }));
        assertThrows(SQLException.class, () -> new Patience(() -> false, "job test").outlast("a step", () -> {
            throw new SQLException("duplicate key", "23505");
        }));
        assertEquals(1, tries.get());
    }

    @Test
    void aJobAskedToStopStopsWaiting() {
        AtomicBoolean stopping = new AtomicBoolean();
        AtomicInteger tries = new AtomicInteger();
        assertThrows(GatePausedException.class, () -> new Patience(stopping::get, "job test").outlast("a step", () -> {
            if (tries.incrementAndGet() == 3) {
                stopping.set(true);
            }
            throw new GatePausedException("connection refused");
        }));
        assertEquals(3, tries.get());
        assertTrue(Patience.isPassing(new GatePausedException("x")));
        assertFalse(Patience.isPassing(new IllegalStateException("a bug")));
    }
}
