package dev.gate.store;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.Optional;

/**
 * Whether a connection keeps its database session between transactions. The gate needs it to: its instance lock
 * ({@link InstanceLock}) and its LISTEN live on the grant listener's one connection. A pooler that hands each
 * transaction to whichever server connection is free (PgBouncer's {@code pool_mode = transaction} or
 * {@code statement}) breaks both without an error: the lock stays on a server connection other clients then use,
 * so granters take this instance's callers for dead and pass them over, and notifications go to nobody.
 *
 * <p>The check, on the connection that took the lock and LISTENs: its next transaction still sees both on its own
 * backend; a second connection, in an open transaction, is not given that same backend (a pooler in transaction
 * mode hands out the backend it just got back); and the first connection's next transaction is still on its
 * backend, with the lock, while the second holds its own.
 */
public final class SessionPinning {

    /** What the operator is told: what is wrong, why the gate needs it, what to do. */
    static final String LOST = "the gate's database connections do not keep their session between transactions "
            + "(%s). The gate keeps its instance lock and its LISTEN on one session; behind a connection pooler in "
            + "transaction or statement mode (PgBouncer pool_mode = transaction) its calls would be taken for "
            + "dead and its waiters never woken. Connect the gate to PostgreSQL directly, or through PgBouncer "
            + "with pool_mode = session.";

    // Both on this backend: the instance lock (two-key advisory lock: classid, objid, objsubid 2) and the LISTEN.
    private static final String OWN_SESSION = """
            SELECT pg_backend_pid(),
                   EXISTS (SELECT 1 FROM pg_locks
                           WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
                             AND classid = ?::int::oid AND objid = hashtext(?)::oid AND objsubid = 2),
                   ? IN (SELECT pg_listening_channels())""";

    private static final int TIMEOUT_S = 1;

    private SessionPinning() {
    }

    /**
     * Why {@code held} (autocommit, which took {@code owner}'s instance lock and LISTENs on {@code channel}) does not
     * keep its session; empty when it does. {@code pool} lends the second connection.
     */
    public static Optional<String> lost(Connection held, String owner, String channel, DataSource pool)
            throws SQLException {
        Backend first = backend(held, owner, channel);
        if (first.missing() != null) {
            return Optional.of(String.format(LOST, first.missing() + " was gone on the next transaction"));
        }
        Connection borrowed;
        try {
            borrowed = pool.getConnection();
        } catch (SQLException busy) {
            // every connection in use (callers after an outage): cannot tell now; the next reconnect asks again
            return Optional.empty();
        }
        try (Connection other = borrowed) {
            other.setAutoCommit(false);
            try {
                int otherPid;
                try (PreparedStatement ps = other.prepareStatement("SELECT pg_backend_pid()")) {
                    ps.setQueryTimeout(TIMEOUT_S);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        otherPid = rs.getInt(1);
                    }
                } catch (SQLTimeoutException e) {
                    return Optional.empty(); // no backend free for a second client: cannot tell, the listener goes on
                } catch (SQLException e) {
                    // PgBouncer in statement mode ends a client that opens a transaction, and says why
                    if (String.valueOf(e.getMessage()).contains("pooling mode")) {
                        return Optional.of(String.format(LOST, "a transaction was refused: " + e.getMessage()));
                    }
                    throw e;
                }
                if (otherPid == first.pid()) {
                    return Optional.of(String.format(LOST, "another connection was given the backend of the "
                            + "gate's listener, pid " + otherPid));
                }
                Backend again;
                try {
                    again = backend(held, owner, channel);
                } catch (SQLTimeoutException e) {
                    return Optional.of(String.format(LOST, "the listener's connection had to wait for a backend "
                            + "while another connection held one"));
                }
                if (again.pid() != first.pid() || again.missing() != null) {
                    return Optional.of(String.format(LOST, "the listener's next transaction ran on backend "
                            + again.pid() + ", not " + first.pid()));
                }
                return Optional.empty();
            } finally {
                if (!other.isClosed()) {
                    other.rollback();
                }
            }
        }
    }

    private record Backend(int pid, String missing) {
    }

    private static Backend backend(Connection c, String owner, String channel) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(OWN_SESSION)) {
            ps.setQueryTimeout(TIMEOUT_S);
            ps.setInt(1, InstanceLock.LOCK_SPACE);
            ps.setString(2, owner);
            ps.setString(3, channel);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                String missing = !rs.getBoolean(2) ? "the instance lock it took"
                        : !rs.getBoolean(3) ? "its LISTEN" : null;
                return new Backend(rs.getInt(1), missing);
            }
        }
    }
}
