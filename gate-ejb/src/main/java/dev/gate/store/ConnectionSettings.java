package dev.gate.store;

import org.postgresql.PGConnection;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The settings every gate transaction runs with: READ COMMITTED, {@code lock_timeout} and {@code statement_timeout}.
 * They are made once per physical connection, at session level, instead of in a round trip at the start of every
 * transaction: the engine's data source is its own (WildFly's GateEngineDS, or a test's pool), so nobody else borrows
 * a connection that carries them. A connection that is not yet known to carry them gets them inside its transaction
 * ({@code SET LOCAL}) where they cannot be made durable first; a migration takes them off ({@link #lift}). On a pool
 * shared with others ({@link Tx#onShared}) they are only ever made for one transaction.
 */
public final class ConnectionSettings {

    static final String SESSION = "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED; "
            + "SET lock_timeout = '" + Tx.LOCK_TIMEOUT_MS + "ms'; SET statement_timeout = '"
            + Tx.STATEMENT_TIMEOUT_MS + "ms'";

    static final String LOCAL = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED; SET LOCAL lock_timeout = '"
            + Tx.LOCK_TIMEOUT_MS + "ms'; SET LOCAL statement_timeout = '" + Tx.STATEMENT_TIMEOUT_MS + "ms'";

    // Keyed by the driver's connection (identity): a pool's wrapper changes on every checkout, the physical
    // connection does not. Weak, so a connection the pool closes is forgotten with it.
    private static final Map<Object, Boolean> MADE = Collections.synchronizedMap(new WeakHashMap<>());

    private ConnectionSettings() {
    }

    /**
     * Before the transaction begins (auto-commit still on, so a SET is in force at once and no rollback can undo
     * it): makes the settings on a connection that does not carry them yet.
     */
    static void beforeBegin(Connection c) throws SQLException {
        Object physical = physical(c);
        if (physical == null || MADE.containsKey(physical)) {
            return;
        }
        if (!c.getAutoCommit()) {
            return; // inside someone's transaction: inTransaction covers it
        }
        try (Statement s = c.createStatement()) {
            s.execute(SESSION);
        }
        MADE.put(physical, Boolean.TRUE);
    }

    /** Inside a transaction already begun: makes the settings for this transaction where the session lacks them. */
    static void inTransaction(Connection c) throws SQLException {
        Object physical = physical(c);
        if (physical != null && MADE.containsKey(physical)) {
            return;
        }
        try (Statement s = c.createStatement()) {
            s.execute(LOCAL);
        }
    }

    /** Inside a transaction on a shared pool's connection: the settings for this transaction alone, always. */
    static void forThisTransaction(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(LOCAL);
        }
    }

    /** Whether this connection is known to carry the settings for its whole session. */
    static boolean carried(Connection c) {
        Object physical = physical(c);
        return physical != null && MADE.containsKey(physical);
    }

    /** A schema migration may run long: the connection goes back to the server's defaults, and is forgotten. */
    public static void lift(Connection c) throws SQLException {
        Object physical = physical(c);
        if (physical != null) {
            MADE.remove(physical);
        }
        try (Statement s = c.createStatement()) {
            s.execute("RESET default_transaction_isolation; RESET lock_timeout; RESET statement_timeout");
        }
    }

    private static Object physical(Connection c) {
        try {
            return c.isWrapperFor(PGConnection.class) ? c.unwrap(PGConnection.class) : null;
        } catch (SQLException e) {
            return null; // cannot tell: settings in every transaction
        }
    }
}
