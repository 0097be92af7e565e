package dev.gate.engine;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.api.GatePausedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A caller's step on an instance whose connections closed under it (the instance stopping, its pool closed with it)
 * hears "calls are paused", as for any database it cannot reach, never a bug's IllegalStateException (found by the
 * random histories: a step on a killed copy failed with "gate SQL failed: HikariDataSource ... has been closed").
 */
class StoppedInstanceTest {

    @RegisterExtension
    final GateCopies copies = new GateCopies();

    @Test
    void aStepOnAnInstanceWhosePoolClosedIsPausedNotABug() throws Exception {
        HikariDataSource pool = copies.pool(GateCopies.POOL);
        Engine gate = copies.start("stopping", GateCopies.FAST, new ScheduledThreadPoolExecutor(2), pool);
        copies.limit("stopping", 10, Duration.ofSeconds(1));
        assertTrue(gate.callers().tryNow("stopping", CallClass.INTERACTIVE, "p", CallOptions.NONE).isGranted());
        gate.halt();
        pool.close();
        for (var step : java.util.List.<org.junit.jupiter.api.function.Executable>of(
                () -> gate.callers().tryNow("stopping", CallClass.INTERACTIVE, "p", CallOptions.NONE),
                () -> gate.callers().tryConsume("stopping", CallClass.INTERACTIVE, "p", CallOptions.NONE),
                () -> gate.programs().submit("p", "stopping", CallClass.INTERACTIVE, CallOptions.NONE, null))) {
            GatePausedException paused = assertThrows(GatePausedException.class, step);
            assertTrue(paused.getMessage().startsWith("calls are paused"), paused.getMessage());
        }
    }
}
