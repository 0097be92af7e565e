package dev.gate.store;


import javax.sql.DataSource;
import java.util.concurrent.Executor;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;

/**
 * One short local transaction on a pooled connection. The gate never holds a transaction while a caller waits:
 * each step (join, grant, renew) commits on its own, and a grant is durable before anyone is told of it.
 * Must run outside a JTA transaction (the EJBs use NOT_SUPPORTED).
 */
public final class Tx {

    /** Work done inside the transaction. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /**
     * Longest wait for the database's answer to a statement someone waits on: a caller's step, a grant (they are all
     * short). Past it the database counts as unavailable: a silent network cut must not hold a caller or a grant for
     * long. Work nobody waits on waits longer ({@link #ridingStalls}).
     */
    public static final int NETWORK_TIMEOUT_MS = 600;

    /**
     * Longest wait for a row lock. Well under the network timeout, so that a slow holder (another instance stalled
     * mid-pass by GC or a slow fsync) reads as "busy, try again" ({@link StoreBusy}), never as an outage.
     */
    public static final int LOCK_TIMEOUT_MS = 200;

    /** Longest run of one statement: the server cancels it (busy) before the network timeout calls it an outage. */
    public static final int STATEMENT_TIMEOUT_MS = 500;

    /**
     * Longest silence of the database taken for a stall (a switch or a proxy that paused, a host's hiccup), not an
     * outage, by work that nobody waits on ({@link #ridingStalls}).
     */
    public static final int STALL_MS = 2_000;

    /** The network timeout of work that rides stalls: a stall, then the usual wait for an answer. */
    public static final int RIDING_NETWORK_TIMEOUT_MS = STALL_MS + NETWORK_TIMEOUT_MS;

    private static final Executor DIRECT = Runnable::run;

    private final DataSource dataSource;
    private final boolean owned;
    private final int networkTimeoutMs;

    /** On the engine's own pool: its connections carry the gate's settings for their whole session. */
    public Tx(DataSource dataSource) {
        this(dataSource, true, NETWORK_TIMEOUT_MS);
    }

    private Tx(DataSource dataSource, boolean owned, int networkTimeoutMs) {
        this.dataSource = dataSource;
        this.owned = owned;
        this.networkTimeoutMs = networkTimeoutMs;
    }

    /**
     * On a pool the gate shares with others (the server's applications' datasource): the settings are made inside
     * each transaction ({@code SET LOCAL}) and end with it, so none leaks to the pool's other users.
     */
    public static Tx onShared(DataSource dataSource) {
        return new Tx(dataSource, false, NETWORK_TIMEOUT_MS);
    }

    /**
     * The same transactions for work that nobody waits on (housekeeping, the slot loop's read, the table check): they
     * wait out a stall of up to {@link #STALL_MS} instead of taking it for an outage after
     * {@link #NETWORK_TIMEOUT_MS}. A caller's step and a grant keep the short wait: a caller is not held, and a grant
     * whose answer comes late is not delivered late.
     */
    public Tx ridingStalls() {
        return new Tx(dataSource, owned, RIDING_NETWORK_TIMEOUT_MS);
    }

    /**
     * @throws StoreUnavailable the database is unavailable (or read-only): nobody can know what happened
     * @throws StoreBusy           a lock or statement timed out, or a deadlock was broken; nothing was changed
     */
    public <T> T run(Work<T> work) throws StoreUnavailable {
        try (Connection c = connection()) {
            limitWait(c, networkTimeoutMs);
            if (owned) {
                ConnectionSettings.beforeBegin(c);
            }
            return runIn(c, work, owned);
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    /**
     * {@code work} in a transaction on {@code c}, with the settings (made for this transaction alone unless the
     * connection carries them, {@code owned}); auto-commit as it was afterwards.
     */
    private static <T> T runIn(Connection c, Work<T> work, boolean owned) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try {
            if (owned) {
                ConnectionSettings.inTransaction(c);
            } else {
                ConnectionSettings.forThisTransaction(c);
            }
            T result = work.run(c);
            c.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            rollbackQuietly(c, e);
            throw e;
        } finally {
            restoreQuietly(c, autoCommit);
        }
    }

    /**
     * One statement that is its own transaction (auto-commit): the database commits it as it answers, so the whole
     * transaction is one round trip. {@code work} must run exactly one statement (or statements the driver sends
     * together before one Sync, as a try's lock and decision: one implicit transaction). Errors as {@link #run}.
     */
    public <T> T runAlone(Work<T> work) throws StoreUnavailable {
        try (Connection c = connection()) {
            limitWait(c, networkTimeoutMs);
            if (owned) {
                ConnectionSettings.beforeBegin(c);
            }
            if (!owned || !c.getAutoCommit() || !ConnectionSettings.carried(c)) {
                // without the session's lock and statement timeouts: a transaction that sets them (more round trips)
                return runIn(c, work, owned);
            }
            return work.run(c);
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    /**
     * A connection of the pool's. One it cannot lend is unavailability whatever the reason: no database, or the pool
     * closed with its instance (a step in flight as the instance stops hears "paused", as from {@link Jpa}); see
     * {@link Lending} for a pool that says so otherwise than with a SQLException.
     */
    private Connection connection() throws StoreUnavailable {
        try {
            return dataSource.getConnection();
        } catch (SQLException e) {
            throw new StoreUnavailable(e);
        }
    }

    /** A failed statement as the gate's callers see it: unavailable (paused), busy (try again), or a bug. */
    private static RuntimeException failed(SQLException e) throws StoreUnavailable {
        if (isUnavailable(e)) {
            throw new StoreUnavailable(e);
        }
        if (StoreBusy.is(e)) {
            return new StoreBusy(e);
        }
        return new IllegalStateException("gate SQL failed: " + e.getMessage(), e);
    }

    static void limitWait(Connection c, int networkTimeoutMs) throws SQLException {
        try {
            if (c.getNetworkTimeout() != networkTimeoutMs) {
                c.setNetworkTimeout(DIRECT, networkTimeoutMs);
            }
        } catch (SQLFeatureNotSupportedException | AbstractMethodError unsupported) {
            // a pool without it: the driver's socketTimeout (datasource configuration) bounds the wait instead
        }
    }

    /** One round trip: does the database answer, and may the gate write to it (not a standby, not read-only)? */
    public void probe() throws StoreUnavailable {
        boolean writable = run(c -> {
            try (java.sql.Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery(
                    "SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off'")) {
                rs.next();
                return rs.getBoolean(1);
            }
        });
        if (!writable) {
            throw new StoreUnavailable("the database is read-only (a standby, or default_transaction_read_only)");
        }
    }

    /**
     * Connection-level failures (class 08, 57P shutdown, pool exhaustion, I/O) mean "cannot know", never a guess; a
     * read-only database (25006: a standby after a switchover) cannot take a grant, so it is unavailable too.
     */
    static boolean isUnavailable(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLTransientConnectionException || t instanceof SQLRecoverableException) {
                return true;
            }
            if (t instanceof SQLException s && s.getSQLState() != null
                    && (s.getSQLState().startsWith("08") || s.getSQLState().startsWith("57P")
                    || s.getSQLState().equals("25006"))) {
                return true;
            }
            if (t instanceof java.io.IOException) {
                return true;
            }
        }
        // IronJacamar reports "could not get a connection" without a SQLState: that is unavailability too.
        return e.getSQLState() == null && e.getMessage() != null && e.getMessage().contains("IJ0");
    }

    private static void rollbackQuietly(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException r) {
            cause.addSuppressed(r);
        }
    }

    private static void restoreQuietly(Connection c, boolean autoCommit) {
        try {
            c.setAutoCommit(autoCommit);
        } catch (SQLException ignored) {
            // a broken connection: the pool discards it
        }
    }
}
