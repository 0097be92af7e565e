package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.GateException;
import dev.gate.api.UnknownLimitException;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A join that meets its limit's removal, its insert waiting for the limit's row while the removal commits, hears that
 * the limit is unknown: never a failure of the gate's (the random histories' long run, seed 80006: a call joining
 * with others failed with a foreign key's raw error, "the gate failed to take a call").
 */
class JoinDuringRemovalTest extends OnOneCopy {

    @Test
    void aJoinWithOthersHearsTheLimitIsUnknown() throws Exception {
        joinDuringRemoval(CallOptions.NONE); // a plain call joins with whoever arrives with it
    }

    @Test
    void aJoinAloneHearsTheLimitIsUnknown() throws Exception {
        joinDuringRemoval(CallOptions.NONE.withDeadline(Duration.ofMinutes(1))); // a deadline joins alone
    }

    @Test
    void aTryHearsTheLimitIsUnknown() throws Exception {
        duringRemoval(() -> gate.callers().tryNow("going", CallClass.SCHEDULED, "worker", CallOptions.NONE));
    }

    private boolean aSessionWaitsOnALock() {
        try {
            return copies.count("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    + "AND datname = current_database()") > 0;
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A step of the gate's that may refuse. */
    private interface Step {
        void run() throws GateException;
    }

    private void joinDuringRemoval(CallOptions options) throws Exception {
        duringRemoval(() -> gate.callers().join("going", CallClass.SCHEDULED, "worker", options));
    }

    private void duringRemoval(Step step) throws Exception {
        // a burst of 2: no free line's fast path, whose lock on the slot would have the join wait before it inserts
        copies.limit("going", 10, Duration.ofSeconds(1), "burst", 2);
        try (Connection removal = copies.connect()) {
            removal.setAutoCommit(false);
            try (PreparedStatement ps = removal.prepareStatement("DELETE FROM gate_limit WHERE name = 'going'")) {
                ps.executeUpdate(); // the removal's last step, its row locked until it commits
            }
            CompletableFuture<Throwable> heard = CompletableFuture.supplyAsync(() -> {
                try {
                    step.run();
                    return null;
                } catch (GateException e) {
                    return e;
                }
            });
            GateCopies.await("the join waits for the limit's row", Duration.ofSeconds(10), this::aSessionWaitsOnALock);
            removal.commit();
            Throwable told = heard.get(10, TimeUnit.SECONDS);
            assertInstanceOf(UnknownLimitException.class, told, String.valueOf(told));
        }
        assertTrue(copies.count("SELECT count(*) FROM gate_call") == 0, "nothing joined");
    }
}
