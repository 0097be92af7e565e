package dev.gate.engine;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.dev.TestDatabase;
import dev.gate.line.WindowCount;
import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Separate copies of the gate on one fresh database, each with its own connection pool, scheduler and listener,
 * as separate processes would have. Also reads the tables the way an operator would.
 */
final class GateCopies implements AutoCloseable {

    /** Fast timings for tests: leases from 1 s, heartbeat and polls several times a second. */
    static final EngineSettings FAST = new EngineSettings(Duration.ofSeconds(30), Duration.ofSeconds(1),
            Duration.ofSeconds(300), Duration.ofMillis(300), Duration.ofMillis(200), Duration.ofMillis(200),
            Duration.ofMillis(100), 3, Duration.ofMillis(900));

    static final int POOL = PoolNeeds.connections(FAST);

    private final TestDatabase server = TestDatabase.server();
    private final String database;
    private final List<Engine> engines = new ArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();

    GateCopies(String database) throws Exception {
        this.database = database;
        server.freshDatabase(database);
        try (Connection c = connect()) {
            @SuppressWarnings("deprecation")
            Liquibase liquibase = new Liquibase("dev/gate/db/changelog.xml",
                    new ClassLoaderResourceAccessor(GateCopies.class.getClassLoader()),
                    DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c)));
            liquibase.update(new Contexts(), new LabelExpression());
        }
    }

    Engine start(String name) {
        return start(name, FAST, new ScheduledThreadPoolExecutor(2));
    }

    Engine start(String name, EngineSettings settings, ScheduledExecutorService scheduler) {
        return start(name, settings, scheduler, server.pool(database, PoolNeeds.connections(settings)));
    }

    /** A copy on a pool of the caller's (e.g. one that reaches the database through a proxy). */
    Engine start(String name, EngineSettings settings, ScheduledExecutorService scheduler, HikariDataSource pool) {
        Engine engine = new Engine(name, pool, name + "-pool", pool.getMaximumPoolSize(), scheduler,
                Executors.defaultThreadFactory(), settings);
        engine.start();
        engines.add(engine);
        resources.add(scheduler::shutdownNow);
        resources.add(pool);
        return engine;
    }

    TestDatabase server() {
        return server;
    }

    String database() {
        return database;
    }

    Connection connect() throws SQLException {
        return server.connect(database);
    }

    void sql(String sql, Object... args) throws SQLException {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            ps.execute();
        }
    }

    long count(String sql, Object... args) throws SQLException {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** The database clock, the gate's only clock. */
    OffsetDateTime dbNow() throws SQLException {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement("SELECT now()");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class);
        }
    }

    List<Long> ids(String sql, Object... args) throws SQLException {
        List<Long> out = new ArrayList<>();
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, args);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1));
                }
            }
        }
        return out;
    }

    /**
     * Writes {@code count} sends into a limit's log as another instance (or a gate before a restart) would have,
     * the first {@code firstAgo} before now and then every {@code apart}.
     */
    void logSends(String limit, int count, Duration firstAgo, Duration apart) throws SQLException {
        // numbered after the limit's last send, as the granter numbers them
        sql("""
                WITH n AS (SELECT send_seq FROM gate_slot WHERE limit_name = ?),
                     logged AS (
                         INSERT INTO gate_send (limit_name, call_id, sent_at, seq)
                         SELECT ?, -i, clock_timestamp() - ? * interval '1 millisecond' + i * ? * interval '1 millisecond',
                                n.send_seq + i + 1
                         FROM n, generate_series(0, ? - 1) i)
                UPDATE gate_slot SET send_seq = send_seq + ? WHERE limit_name = ?""",
                limit, limit, firstAgo.toMillis(), apart.toMillis(), count, count, limit);
    }

    /** A call's state as the table has it. */
    String state(long callId) {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(
                "SELECT state FROM gate_call WHERE id = ?")) {
            ps.setLong(1, callId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : "gone";
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Makes the limit's slot long due, so that only the window caps can hold a call. */
    void slotLongDue(String limit) throws SQLException {
        sql("UPDATE gate_slot SET next_slot_at = clock_timestamp() - interval '1 hour' WHERE limit_name = ?", limit);
    }

    /** The send log of one limit, in grant order. */
    List<Instant> sends(String limit) throws SQLException {
        List<Instant> out = new ArrayList<>();
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(
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

    /** The most sends any window (t - window, t] holds. */
    static int fullestWindow(List<Instant> sends, Duration window) {
        return WindowCount.fullest(sends, window);
    }

    /** Waits for a condition on the real clock, failing after {@code timeout}. */
    static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long until = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                fail("timed out after " + timeout + " waiting for: " + what);
            }
            Thread.sleep(20);
        }
    }

    private static void bind(PreparedStatement ps, Object[] args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            ps.setObject(i + 1, args[i]);
        }
    }

    @Override
    public void close() throws Exception {
        for (Engine e : engines) {
            e.halt();
        }
        for (AutoCloseable r : resources) {
            r.close();
        }
    }
}
