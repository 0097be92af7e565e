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

    @Test
    void aStepWhosePoolFailsToLendAConnectionOutrightIsPausedNotABug() throws Exception {
        // found by the random histories (seed 56022): a step on a copy being killed met HikariCP closing under its
        // getConnection, which threw a NullPointerException; the caller heard it, not "calls are paused"
        HikariDataSource base = copies.pool(GateCopies.POOL);
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        base.copyStateTo(config);
        base.close();
        java.util.concurrent.atomic.AtomicBoolean closing = new java.util.concurrent.atomic.AtomicBoolean();
        HikariDataSource pool = new HikariDataSource(config) {
            @Override
            public java.sql.Connection getConnection() throws java.sql.SQLException {
                if (closing.get()) { // as HikariCP's pool entry does when its connection is closed under it
                    throw new NullPointerException("Cannot invoke \"java.sql.Connection.setNetworkTimeout("
                            + "java.util.concurrent.Executor, int)\" because \"connection\" is null");
                }
                return super.getConnection();
            }
        };
        copies.closeAfter(pool);
        Engine gate = copies.start("lending", GateCopies.FAST, new ScheduledThreadPoolExecutor(2), pool);
        copies.limit("lending", 10, Duration.ofSeconds(1));
        assertTrue(gate.callers().tryNow("lending", CallClass.INTERACTIVE, "p", CallOptions.NONE).isGranted());
        closing.set(true);
        for (var step : java.util.List.<org.junit.jupiter.api.function.Executable>of(
                () -> gate.callers().tryNow("lending", CallClass.INTERACTIVE, "p", CallOptions.NONE),
                () -> gate.callers().tryConsume("lending", CallClass.INTERACTIVE, "p", CallOptions.NONE),
                () -> gate.programs().submit("p", "lending", CallClass.INTERACTIVE,
                        CallOptions.NONE.withDeadline(Duration.ofSeconds(2)), null))) {
            GatePausedException paused = assertThrows(GatePausedException.class, step);
            assertTrue(paused.getMessage().startsWith("calls are paused"), paused.getMessage());
        }
    }

    @Test
    void aStepWhoseConnectionThePoolFailsToTakeBackIsPausedNotABug() throws Exception {
        // found by the random histories (seed 97134): copy a killed as a program's keyed join ran on it; HikariCP,
        // closed, threw a NullPointerException from the connection's close (resetting the network timeout of a pool
        // entry it had closed) and the caller heard it, not "calls are paused"
        HikariDataSource base = copies.pool(GateCopies.POOL);
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        base.copyStateTo(config);
        base.close();
        java.util.concurrent.atomic.AtomicBoolean closing = new java.util.concurrent.atomic.AtomicBoolean();
        HikariDataSource pool = new HikariDataSource(config) {
            @Override
            public java.sql.Connection getConnection() throws java.sql.SQLException {
                java.sql.Connection lent = super.getConnection();
                return (java.sql.Connection) java.lang.reflect.Proxy.newProxyInstance(
                        java.sql.Connection.class.getClassLoader(), new Class<?>[] {java.sql.Connection.class},
                        (proxy, method, args) -> {
                            if (closing.get() && method.getName().equals("close")) {
                                lent.close();
                                throw new NullPointerException("Cannot invoke \"java.sql.Connection.setNetworkTimeout("
                                        + "java.util.concurrent.Executor, int)\" because \"connection\" is null");
                            }
                            try {
                                return method.invoke(lent, args);
                            } catch (java.lang.reflect.InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
            }
        };
        copies.closeAfter(pool);
        Engine gate = copies.start("taking-back", GateCopies.FAST, new ScheduledThreadPoolExecutor(2), pool);
        copies.limit("taking-back", 10, Duration.ofSeconds(1));
        assertTrue(gate.callers().tryNow("taking-back", CallClass.INTERACTIVE, "p", CallOptions.NONE).isGranted());
        closing.set(true);
        for (var step : java.util.List.<org.junit.jupiter.api.function.Executable>of(
                () -> gate.callers().tryNow("taking-back", CallClass.INTERACTIVE, "p", CallOptions.NONE),
                () -> gate.programs().submit("p", "taking-back", CallClass.INTERACTIVE, CallOptions.NONE, null))) {
            GatePausedException paused = assertThrows(GatePausedException.class, step);
            assertTrue(paused.getMessage().startsWith("calls are paused"), paused.getMessage());
        }
    }
}
