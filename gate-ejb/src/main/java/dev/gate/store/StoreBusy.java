package dev.gate.store;

import java.sql.SQLException;

/**
 * The database answered, but a lock was not free in time ({@code lock_timeout}), a deadlock was broken, or a
 * statement ran past {@code statement_timeout}: the transaction rolled back and may simply be tried again. Never a
 * reason to pause calls. Keeps the SQL cause.
 */
public final class StoreBusy extends RuntimeException {

    private static final long serialVersionUID = 1L;

    StoreBusy(SQLException cause) {
        super("the gate's database is busy (SQLSTATE " + cause.getSQLState() + "): " + cause.getMessage(), cause);
    }

    /** 55P03 lock not available, 40P01 deadlock, 40001 serialization failure, 57014 statement cancelled. */
    static boolean is(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null) {
                switch (s.getSQLState()) {
                    case "55P03", "40P01", "40001", "57014" -> {
                        return true;
                    }
                    default -> {
                        // look further down the chain
                    }
                }
            }
        }
        return false;
    }
}
