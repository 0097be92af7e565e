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

    /** The NullPointerException HikariCP throws when it meets a pool entry whose connection it closed under it. */
    private static final String CLOSED_ENTRY = "Cannot invoke \"java.sql.Connection.setNetworkTimeout("
            + "java.util.concurrent.Executor, int)\" because \"connection\" is null";

    @Test
    void aStepWhosePoolFailsToLendAConnectionOutrightIsPausedNotABug() throws Exception {
        // found by the random histories (seed 56022): a step on a copy being killed met HikariCP closing under its
        // getConnection, which threw a NullPointerException; the caller heard it, not "calls are paused"
        java.util.concurrent.atomic.AtomicBoolean closing = new java.util.concurrent.atomic.AtomicBoolean();
        HikariDataSource pool = lending(lend -> {
            if (closing.get()) { // as HikariCP's pool entry does when its connection is closed under it
                throw new NullPointerException(CLOSED_ENTRY);
            }
            return lend.call();
        });
        Engine gate = grantingOn("lending", pool);
        closing.set(true);
        assertPaused(() -> gate.callers().tryNow("lending", CallClass.INTERACTIVE, "p", CallOptions.NONE),
                () -> gate.callers().tryConsume("lending", CallClass.INTERACTIVE, "p", CallOptions.NONE),
                () -> gate.programs().submit("p", "lending", CallClass.INTERACTIVE,
                        CallOptions.NONE.withDeadline(Duration.ofSeconds(2)), null));
    }

    @Test
    void aStepWhoseConnectionThePoolFailsToTakeBackIsPausedNotABug() throws Exception {
        // found by the random histories (seed 97134): copy a killed as a program's keyed join ran on it; HikariCP,
        // closed, threw a NullPointerException from the connection's close (resetting the network timeout of a pool
        // entry it had closed) and the caller heard it, not "calls are paused"
        java.util.concurrent.atomic.AtomicBoolean closing = new java.util.concurrent.atomic.AtomicBoolean();
        HikariDataSource pool = lending(lend -> {
            java.sql.Connection lent = lend.call();
            return (java.sql.Connection) java.lang.reflect.Proxy.newProxyInstance(
                    java.sql.Connection.class.getClassLoader(), new Class<?>[] {java.sql.Connection.class},
                    (proxy, method, args) -> {
                        if (closing.get() && method.getName().equals("close")) {
                            lent.close();
                            throw new NullPointerException(CLOSED_ENTRY);
                        }
                        try {
                            return method.invoke(lent, args);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        });
        Engine gate = grantingOn("taking-back", pool);
        closing.set(true);
        assertPaused(() -> gate.callers().tryNow("taking-back", CallClass.INTERACTIVE, "p", CallOptions.NONE),
                () -> gate.programs().submit("p", "taking-back", CallClass.INTERACTIVE, CallOptions.NONE, null));
    }

    /** How a test's pool lends: given the pool's own lending. */
    private interface Lend {
        java.sql.Connection from(java.util.concurrent.Callable<java.sql.Connection> pool) throws Exception;
    }

    /** A pool of this test's settings that lends through {@code lend}. */
    private HikariDataSource lending(Lend lend) {
        HikariDataSource base = copies.pool(GateCopies.POOL);
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        base.copyStateTo(config);
        base.close();
        return new HikariDataSource(config) {
            @Override
            public java.sql.Connection getConnection() throws java.sql.SQLException {
                try {
                    return lend.from(super::getConnection);
                } catch (java.sql.SQLException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        };
    }

    /** A copy on {@code pool} with a limit of that name, a first try granted. */
    private Engine grantingOn(String name, HikariDataSource pool) throws Exception {
        copies.closeAfter(pool);
        Engine gate = copies.start(name, GateCopies.FAST, new ScheduledThreadPoolExecutor(2), pool);
        copies.limit(name, 10, Duration.ofSeconds(1));
        assertTrue(gate.callers().tryNow(name, CallClass.INTERACTIVE, "p", CallOptions.NONE).isGranted());
        return gate;
    }

    private static void assertPaused(org.junit.jupiter.api.function.Executable... steps) {
        for (var step : steps) {
            GatePausedException paused = assertThrows(GatePausedException.class, step);
            assertTrue(paused.getMessage().startsWith("calls are paused"), paused.getMessage());
        }
    }
}
