package dev.gate.engine;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.api.CallClass;
import dev.gate.dev.PgBouncer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Behind a real PgBouncer: in session mode the gate runs as on a direct connection; in transaction or statement mode
 * its instance lock and LISTEN would be lost between transactions (its callers taken for dead, its waiters never
 * woken), so it refuses to start and says why. Skipped, with the reason, where pgbouncer is not installed (CI
 * installs it).
 */
class PoolerTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @BeforeEach
    void pgbouncerInstalled() {
        assumeTrue(PgBouncer.binary().isPresent(), "pgbouncer is not installed (apt-get install pgbouncer)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"transaction", "statement"})
    void aPoolerThatDoesNotKeepTheSessionIsRefusedAtStart(String mode) {
        PgBouncer bouncer = PgBouncer.start(copies.server(), copies.name(), mode, 4);
        copies.closeAfter(bouncer);
        HikariDataSource pool = copies.server().poolAt(bouncer.url(copies.name()), GateCopies.POOL);
        copies.closeAfter(pool);
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(2);
        copies.closeAfter(scheduler::shutdownNow);
        Engine gate = new Engine("pooled", pool, "pooled-pool", GateCopies.POOL, scheduler,
                java.util.concurrent.Executors.defaultThreadFactory(), GateCopies.FAST);

        IllegalStateException refused = assertThrows(IllegalStateException.class, gate::start);
        gate.halt();
        gate.release();
        System.out.println("pool_mode=" + mode + ": " + refused.getMessage());
        assertTrue(refused.getMessage().startsWith("the gate's database connections do not keep their session "
                + "between transactions"), refused.getMessage());
        assertTrue(refused.getMessage().contains("pool_mode = session"), refused.getMessage());
    }

    @Test
    void inSessionModeTheGateRunsWithItsInstanceLockHeld() throws Exception {
        // a server connection for each of the copy's connections
        PgBouncer bouncer = PgBouncer.start(copies.server(), copies.name(), "session", GateCopies.POOL + 2);
        copies.closeAfter(bouncer);
        Engine pooled = copies.start("pooled", GateCopies.FAST, new ScheduledThreadPoolExecutor(2),
                copies.server().poolAt(bouncer.url(copies.name()), GateCopies.POOL));
        copies.limit("vendor", 5, Duration.ofSeconds(1));

        List<Ticket> tickets = GateCopies.join(pooled, "vendor", 3, CallClass.SCHEDULED, "timer");
        for (Ticket t : tickets) {
            assertEquals(t.callId(), pooled.callers().await(t, Duration.ofSeconds(10)).callId());
        }
        assertEquals(3, copies.sends("vendor").size());
        // granters tell a live instance by this lock: held by a session of the pooled copy's
        assertEquals(1, copies.count("""
                SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
                  AND objid = hashtext('pooled')::oid"""));
    }
}
