package dev.gate.it;

import dev.gate.dev.LimitRow;
import dev.gate.dev.SendLog;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

/** Reads and writes the gate's tables directly, as an operator with psql would (in-container only). */
final class ServerTables {

    private ServerTables() {
    }

    static DataSource dataSource() {
        try {
            return (DataSource) new InitialContext().lookup("java:jboss/datasources/GateDS");
        } catch (NamingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Declares a limit by its row, as the engine tests do ({@link LimitRow}, the same statement): {@code more} are
     * column/value pairs of further gate_limit columns. An operator declares one with {@code GateLimits.put}.
     */
    static void limit(String name, int calls, Duration window, Object... more) throws SQLException {
        try (Connection c = dataSource().getConnection()) {
            LimitRow.insert(c, name, calls, window, more);
        }
    }

    static long count(String sql, Object... args) throws SQLException {
        try (Connection c = dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** The send log, read as every test reads it. */
    static SendLog sendLog() {
        return new SendLog(dataSource());
    }
}
