package dev.gate.store;

import java.sql.SQLException;

/**
 * The database could not be reached, or cannot take writes (a standby, read-only): nobody can know what happened to
 * the transaction. The engine pauses calls on it. Keeps the SQL cause where there is one.
 */
public final class StoreUnavailable extends Exception {

    private static final long serialVersionUID = 1L;

    StoreUnavailable(SQLException cause) {
        super(cause.getMessage(), cause);
    }

    StoreUnavailable(String why) {
        super(why);
    }
}
