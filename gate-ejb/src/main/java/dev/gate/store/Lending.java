package dev.gate.store;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.util.logging.Logger;

/**
 * The engine's DataSource as every way in borrows from it ({@link Tx}, {@link Jpa}, the grant listener): a pool that
 * fails to lend a connection in any way, not only with a SQLException, has no connection to give, and that is
 * unavailability ("calls are paused"), never a bug's exception at the caller. HikariCP closing under a borrower (its
 * instance stopping, or killed) throws a NullPointerException from inside getConnection (found by the random
 * histories, seed 56022: a program's join on a copy being killed heard it), and from the connection's close when it
 * closed a connection lent before (seed 97134): both are unavailability, as a SQLTransientConnectionException.
 */
public final class Lending implements DataSource {

    private final DataSource pool;

    private Lending(DataSource pool) {
        this.pool = pool;
    }

    /** The pool, lending as above (a pool already so wrapped is returned as it is). */
    public static DataSource of(DataSource pool) {
        return pool instanceof Lending ? pool : new Lending(pool);
    }

    @Override
    public Connection getConnection() throws SQLException {
        try {
            return takenBackAsUnavailable(pool.getConnection());
        } catch (RuntimeException e) {
            throw new SQLTransientConnectionException("the connection pool could not lend a connection: " + e, e);
        }
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        try {
            return takenBackAsUnavailable(pool.getConnection(user, password));
        } catch (RuntimeException e) {
            throw new SQLTransientConnectionException("the connection pool could not lend a connection: " + e, e);
        }
    }

    /** The lent connection, whose close fails as unavailability whatever the pool throws (every other call as is). */
    private static Connection takenBackAsUnavailable(Connection lent) {
        return (Connection) java.lang.reflect.Proxy.newProxyInstance(Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    try {
                        return method.invoke(lent, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        Throwable cause = e.getCause();
                        if (cause instanceof RuntimeException && method.getName().equals("close")) {
                            throw new SQLTransientConnectionException("the connection pool could not take back a "
                                    + "connection: " + cause, cause);
                        }
                        throw cause;
                    }
                });
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return pool.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return pool.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return pool.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return type.isInstance(this) ? type.cast(this) : pool.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || pool.isWrapperFor(type);
    }
}
