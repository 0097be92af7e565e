package dev.gate.dev;

import com.zaxxer.hikari.HikariDataSource;
import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * A fresh database with the gate's schema (by {@link dev.gate.db.Migrations}, as the server applies it, once, then
 * copied: {@link SchemaTemplate}) on the test PostgreSQL, and the tables read and written the way an operator with
 * psql would. One per test: the name is dropped and made again.
 */
public class GateDatabase {

    private final TestDatabase server = TestDatabase.server();
    private String name;
    private DataSource direct;

    /** Drops and creates {@code name} with the schema (a copy of its template, {@link SchemaTemplate}). */
    public static GateDatabase fresh(String name) {
        GateDatabase db = new GateDatabase();
        db.open(name);
        return db;
    }

    protected void open(String name) {
        this.name = name;
        server.freshDatabase(name, SchemaTemplate.on(server)); // the schema applied once, copied for each test
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(server.url(name));
        ds.setUser(server.user());
        ds.setPassword(server.password());
        direct = ds; // a connection per question, as psql would: nothing pooled to leak between tests
    }

    public String name() {
        return name;
    }

    public TestDatabase server() {
        return server;
    }

    public Connection connect() throws SQLException {
        return server.connect(name);
    }

    /** A connection pool of its own, as one gate copy would have. */
    public HikariDataSource pool(int size) {
        return server.pool(name, size);
    }

    public SendLog sendLog() {
        return new SendLog(direct);
    }

    /**
     * Declares a limit by its row ({@link LimitRow}): {@code calls} a {@code window}, and {@code more} as column/value
     * pairs of further gate_limit columns ({@code "burst", 2, "keyed", true}); the table's trigger adds its slot. A raw
     * row, for the tests that need a limit before any engine runs, or that put its slot in a given state next; an
     * operator declares one with {@code gate.limits().put(name, LimitSpec)}, which checks the spec and records who
     * declared it.
     *
     * @throws IllegalArgumentException when {@code more} is not pairs, or a column is not named by {@code [a-z_]{1,40}}
     */
    public void limit(String name, int calls, Duration window, Object... more) throws SQLException {
        try (Connection c = direct.getConnection()) {
            LimitRow.insert(c, name, calls, window, more);
        }
    }

    public void sql(String sql, Object... args) throws SQLException {
        try (Connection c = direct.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            ps.execute();
        }
    }

    public long count(String sql, Object... args) throws SQLException {
        try (Connection c = direct.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    public List<Long> ids(String sql, Object... args) throws SQLException {
        List<Long> out = new ArrayList<>();
        try (Connection c = direct.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1));
                }
            }
        }
        return out;
    }

    /** The database clock, the gate's only clock. */
    public OffsetDateTime dbNow() throws SQLException {
        try (Connection c = direct.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT now()");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class);
        }
    }

    /** A call's state as the table has it ("gone" when there is no such call). */
    public String state(long callId) {
        try (Connection c = direct.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT state FROM gate_call WHERE id = ?")) {
            ps.setLong(1, callId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : "gone";
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void bind(PreparedStatement ps, Object[] args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            ps.setObject(i + 1, args[i]);
        }
    }
}
