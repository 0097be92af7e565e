package dev.gate.engine;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A gate refuses to start on a pool that leaves no room for its heartbeat and loop beside a big batch of callers. */
class PoolSizeTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @Test
    void aPoolTooSmallIsRefusedWithItsNameItsSizeAndTheSizeNeeded() {
        EngineSettings settings = EngineSettings.defaults(); // 16 callers in flight
        assertEquals(20, PoolNeeds.connections(settings));
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> new Engine("small",
                copies.server().pool(copies.name(), 10), "GateDS", 10, new ScheduledThreadPoolExecutor(1),
                Executors.defaultThreadFactory(), settings));
        assertTrue(refused.getMessage().contains("GateDS has 10 connections"), refused.getMessage());
        assertTrue(refused.getMessage().contains("needs at least 20"), refused.getMessage());
    }

    @Test
    void aPoolOfTheNeededSizeStartsAndServes() throws Exception {
        EngineSettings settings = GateCopies.FAST;
        HikariDataSource pool = copies.server().pool(copies.name(), PoolNeeds.connections(settings));
        Engine gate = copies.start("sized", settings, new ScheduledThreadPoolExecutor(2), pool);
        copies.limit("sized", 10, Duration.ofSeconds(1));
        assertEquals(PoolNeeds.connections(settings), pool.getMaximumPoolSize(), "the pool is the size the rule says");
        long id = gate.callers().acquire("sized", CallClass.MANUAL, Duration.ofSeconds(5), "ops", CallOptions.NONE)
                .callId();
        gate.callers().complete(id, 200);
        assertEquals(1, copies.count("SELECT count(*) FROM gate_call WHERE id = ? AND state = 'DONE'", id),
                "a pool of exactly that size starts the engine and serves a call to its end");
    }
}
