package dev.gate.it;

import dev.gate.line.WindowCount;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/** Reads and writes the gate's tables directly, as an operator with psql would (in-container only). */
final class SendLog {

    private SendLog() {
    }

    static DataSource dataSource() {
        try {
            return (DataSource) new InitialContext().lookup("java:jboss/datasources/GateDS");
        } catch (NamingException e) {
            throw new IllegalStateException(e);
        }
    }

    static void execute(String sql, Object... args) throws SQLException {
        try (Connection c = dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            ps.execute();
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

    /** The sends of one limit, oldest first. */
    static List<Instant> sends(String limit) throws SQLException {
        List<Instant> out = new ArrayList<>();
        try (Connection c = dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "SELECT sent_at FROM gate_send WHERE limit_name = ? ORDER BY sent_at, id")) {
            ps.setString(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getObject(1, OffsetDateTime.class).toInstant());
                }
            }
        }
        return out;
    }

    /** The most sends any window (t - window, t] holds, over every t. */
    static int fullestWindow(List<Instant> sends, Duration window) {
        return WindowCount.fullest(sends, window);
    }
}
