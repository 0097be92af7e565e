package dev.gate.store;

import java.sql.SQLException;

/**
 * The database could not be reached, or cannot take writes (a standby, read-only): nobody can know what happened to
 * the transaction. The engine pauses calls on it. Keeps the SQL cause where there is one.
 */
public final class StoreUnavailable extends Exception {

    private static final long serialVersionUID = 1L;

    StoreUnavailable(SQLException cause) {
        super(withRoot(cause), cause);
    }

    // The driver's words ("An I/O error occurred while sending to the backend.") with what lay under them (a reset
    // link, a closed socket, a timeout): the operator's one line then says which.
    private static String withRoot(SQLException cause) {
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == cause || root instanceof SQLException ? cause.getMessage()
                : cause.getMessage() + " (" + root.getClass().getSimpleName()
                        + (root.getMessage() == null ? "" : ": " + root.getMessage()) + ")";
    }

    StoreUnavailable(String why) {
        super(why);
    }
}
