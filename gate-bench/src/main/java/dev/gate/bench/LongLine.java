package dev.gate.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;
import dev.gate.dev.GateDatabase;
import dev.gate.engine.Engine;
import dev.gate.store.CallKeys;
import dev.gate.store.GrantPass;
import dev.gate.store.Granter;
import dev.gate.store.OwnedCalls;
import dev.gate.store.Tx;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Part a of the scale figures: one limit whose line holds a given number of waiting calls, on a database of its own,
 * and what a join, a grant and a status read cost there. Two lines of different lengths are measured turn about, a
 * sample on one then on the other, so that the load of a shared machine falls on both alike.
 *
 * <p>The line is filled by SQL as {@code Joins.join} would fill it, in every class; the calls belong to a program,
 * so they live by their lease alone and the grant's "owner alive" check passes them.
 */
final class LongLine implements AutoCloseable {

    static final String LIMIT = "scale-line";

    // A beat of 10 s and a window the measured grants never fill: a slot made due grants exactly one call, even
    // when the machine stalls between making it due and the grant.
    private static final int CALLS = 1_000_000;
    private static final long WINDOW_MS = 10_000L * CALLS;

    private static final String PROBE_PROGRAM = "scale-probe";

    // What Joins.join inserts, many at once: WAITING, a program's owner, a lease long enough for the whole run.
    private static final String FILL = """
            INSERT INTO gate_call (limit_name, call_class, program, owner, state, lease_ms, lease_expires_at)
            SELECT ?, i % 5, 'scale-fill', 'program:scale-fill', 'WAITING', 300000,
                   clock_timestamp() + interval '2 hours'
            FROM generate_series(1, ?) i""";

    /** One timed operation on a line; answers nothing, the time is the figure. */
    @FunctionalInterface
    interface Operation {
        void run(LongLine line) throws Exception;
    }

    /** The operations timed, in the order they run; the engine is started before the first that needs it. */
    enum Figure {
        /** One grant transaction on a due slot, granting the head of the line; the line is topped up after it. */
        GRANT(false),
        /** The join transaction alone (Joins.join); the call leaves the line again, untimed. */
        ENQUEUE(false),
        /** A program's join through the engine: the join, the fast path, the read of the new call. */
        JOIN(true),
        /** A limit's live numbers, as the status page and GET /limits/{name} read them. */
        STATUS(true),
        /** A waiting call's position and estimate, for the last call in line (the count ahead is the work). */
        POSITION(true);

        final boolean needsEngine;

        Figure(boolean needsEngine) {
            this.needsEngine = needsEngine;
        }
    }

    private final GateDatabase db;
    private final int waiting;
    private final Connection sql;
    private final HikariDataSource pool;
    private final dev.gate.store.Joins joins; // the store's; Joins below is this bench's own
    private final OwnedCalls owned;
    private final Granter granter;
    private final List<AutoCloseable> engineResources = new ArrayList<>();
    private Engine engine;
    private long lastInLine;
    private long positionSeen = -1;

    /** A fresh database whose one limit has {@code waiting} calls in line, vacuumed and analyzed. */
    LongLine(String database, int waiting) throws SQLException {
        this.db = GateDatabase.fresh(database);
        this.waiting = waiting;
        this.sql = db.connect();
        // a line longer than the default cap (10,000 waiting): declared with room for it (each join then counts the
        // line up to its cap, part of the figure)
        db.sql("INSERT INTO gate_limit (name, calls, window_ms, max_waiting) VALUES (?, ?, ?, ?)", LIMIT, CALLS,
                WINDOW_MS, Math.max(waiting * 2, 10_000));
        fill(waiting);
        try (Statement s = sql.createStatement()) {
            // a line that long has stood a while: autovacuum has analyzed it and set the visibility map
            s.execute("VACUUM ANALYZE gate_call");
        }
        this.pool = db.pool(4);
        Tx tx = new Tx(pool);
        this.joins = new dev.gate.store.Joins(tx);
        this.owned = new OwnedCalls(tx);
        this.granter = new Granter(tx);
    }

    GateDatabase database() {
        return db;
    }

    int waiting() {
        return waiting;
    }

    /** The position the last call in line read, as a check that the line is as long as it should be. */
    long positionSeen() {
        return positionSeen;
    }

    /** Times one sample of {@code figure}, in milliseconds. */
    double sample(Figure figure) throws Exception {
        if (figure.needsEngine && engine == null) {
            startEngine();
        }
        return switch (figure) {
            case GRANT -> grantPass();
            case ENQUEUE -> timedJoin(() -> joins.join(LIMIT, CallClass.SCHEDULED, PROBE_PROGRAM,
                    "program:" + PROBE_PROGRAM, Duration.ofSeconds(30), null, CallKeys.NONE, id -> { })
                    .orElseThrow().id(), owned::cancel);
            case JOIN -> timedJoin(() -> engine.programs().submit(PROBE_PROGRAM, LIMIT, CallClass.SCHEDULED,
                    CallOptions.NONE, null).call().id(), id -> engine.programs().cancel(PROBE_PROGRAM, id));
            case STATUS -> timed(() -> engine.limits().status(LIMIT).orElseThrow());
            case POSITION -> timed(() -> positionSeen = engine.programs().estimate(lastInLine()).orElseThrow()
                    .position());
        };
    }

    private double grantPass() throws Exception {
        update("UPDATE gate_slot SET next_slot_at = clock_timestamp(), paused_until = NULL WHERE limit_name = ?");
        long t0 = System.nanoTime();
        GrantPass pass = granter.grantDue(LIMIT);
        long t1 = System.nanoTime();
        if (pass.grants().size() != 1) {
            throw new IllegalStateException("a due slot granted " + pass.grants().size() + " calls");
        }
        fill(1);
        return (t1 - t0) / 1e6;
    }

    // From here on the limit is paused, so nobody (the loop, a fast path) shortens the line being measured.
    private void startEngine() throws Exception {
        update("UPDATE gate_slot SET paused_until = clock_timestamp() + interval '1 hour' WHERE limit_name = ?");
        engine = BenchCopies.start("scale-line-copy", db, engineResources);
    }

    /** A call at the end of the line, joined at the first ask; its lease (nobody renews it) outlasts the figure. */
    private long lastInLine() throws Exception {
        if (lastInLine == 0) {
            lastInLine = engine.programs().submit(PROBE_PROGRAM, LIMIT, CallClass.BACKFILL,
                    CallOptions.NONE.withLease(Duration.ofSeconds(300)), null).call().id();
        }
        return lastInLine;
    }

    @FunctionalInterface
    private interface Joins {
        long join() throws Exception;
    }

    @FunctionalInterface
    private interface Leaves {
        void leave(long id) throws Exception;
    }

    @FunctionalInterface
    private interface Read {
        void read() throws Exception;
    }

    private static double timedJoin(Joins join, Leaves leave) throws Exception {
        long t0 = System.nanoTime();
        long id = join.join();
        long t1 = System.nanoTime();
        leave.leave(id);
        return (t1 - t0) / 1e6;
    }

    private static double timed(Read read) throws Exception {
        long t0 = System.nanoTime();
        read.read();
        return (System.nanoTime() - t0) / 1e6;
    }

    private void fill(long count) throws SQLException {
        try (PreparedStatement ps = sql.prepareStatement(FILL)) {
            ps.setString(1, LIMIT);
            ps.setLong(2, count);
            ps.executeUpdate();
        }
    }

    long waitingNow() throws SQLException {
        try (PreparedStatement ps = sql.prepareStatement(
                "SELECT count(*) FROM gate_call WHERE limit_name = ? AND state = 'WAITING'")) {
            ps.setString(1, LIMIT);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private void update(String statement) throws SQLException {
        try (PreparedStatement ps = sql.prepareStatement(statement)) {
            ps.setString(1, LIMIT);
            ps.executeUpdate();
        }
    }

    @Override
    public void close() throws Exception {
        if (engine != null) {
            engine.stop();
        }
        for (AutoCloseable r : engineResources) {
            r.close();
        }
        pool.close();
        sql.close();
    }
}
