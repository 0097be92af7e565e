package dev.gate.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.dev.GateDatabase;
import dev.gate.engine.Engine;
import dev.gate.store.GrantPass;
import dev.gate.store.Granter;
import dev.gate.store.Jpa;
import dev.gate.store.LineView;
import dev.gate.store.Tx;
import dev.gate.store.WaitingLines;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * Part b of the scale figures: many limits, each with a few waiting calls and a slow beat, their slots spread evenly
 * over one beat so that some limit is due all the time; one gate copy runs its slot loop over them. What the loop
 * does is read from outside, from the send log: each send's lateness against its slot, the grants made against the
 * slots that came due.
 */
final class ManyLimits {

    static final int LIMITS = 10_000;
    private static final String PREFIX = "many-";

    /** Most time spent on one kind of read after the run: a slow read is a figure, not a hang. */
    private static final Duration READS = Duration.ofSeconds(60);

    /** What the run showed. */
    record Run(int limits, Duration beat, Duration ran, long slotsDue, List<Double> lateness,
               Percentiles waitingRead, Percentiles notDueGrant, Percentiles oneStatus,
               Percentiles allStatus) {

        long grants() {
            return lateness.size();
        }
    }

    private final GateDatabase db;
    private final Duration beat;

    ManyLimits(GateDatabase db, Duration beat) {
        this.db = db;
        this.beat = beat;
    }

    Run run(Duration runFor) throws Exception {
        int callsPerLimit = (int) (runFor.toMillis() / beat.toMillis()) + 3; // still a few waiting at the end
        Instant firstSlot;
        Instant end;
        try (Connection sql = db.connect()) {
            fill(sql, callsPerLimit);
            List<AutoCloseable> copy = new ArrayList<>();
            Engine engine = BenchCopies.start("scale-many-copy", db, copy);
            try {
                firstSlot = spreadSlots(sql);
                Thread.sleep(runFor.toMillis() + Duration.between(now(sql), firstSlot).toMillis());
                end = now(sql);
            } finally {
                engine.stop();
                for (AutoCloseable r : copy) {
                    r.close();
                }
            }
            List<Double> lateness = new ArrayList<>();
            readSends(sql, end, lateness);
            try (HikariDataSource pool = db.pool(4); Jpa jpa = new Jpa(pool)) {
                // the same store calls a pass makes, timed from outside now that the loop is stopped
                Tx tx = new Tx(pool);
                WaitingLines limits = new WaitingLines(tx);
                Percentiles waitingRead = timed(5, READS, limits::withWaitingCalls);
                try (Statement s = sql.createStatement()) {
                    s.execute("UPDATE gate_slot SET next_slot_at = clock_timestamp() + interval '1 hour'");
                }
                Granter granter = new Granter(tx);
                List<Double> notDue = new ArrayList<>();
                for (int i = 1; i <= 2_000; i++) {
                    String limit = name(1 + (i * 7919) % LIMITS);
                    long t0 = System.nanoTime();
                    GrantPass pass = granter.grantDue(limit);
                    notDue.add((System.nanoTime() - t0) / 1e6);
                    if (!pass.grants().isEmpty()) {
                        throw new IllegalStateException("a slot an hour away granted a call");
                    }
                }
                LineView view = new LineView(jpa);
                Percentiles one = timed(50, READS, () -> view.limit(name(LIMITS / 2)).orElseThrow());
                Percentiles all = timed(3, READS, view::limits);
                return new Run(LIMITS, beat, Duration.between(firstSlot, end), slotsDue(firstSlot, end), lateness,
                        waitingRead, new Percentiles(notDue.subList(200, notDue.size())),
                        one, all);
            }
        }
    }

    /** Limits with their calls; every slot an hour away until the copy runs, so none comes due at start-up. */
    private void fill(Connection sql, int callsPerLimit) throws SQLException {
        try (Statement s = sql.createStatement()) {
            s.execute("INSERT INTO gate_limit (name, calls, window_ms) SELECT '" + PREFIX
                    + "' || lpad(i::text, 5, '0'), 1, " + beat.toMillis() + " FROM generate_series(1, " + LIMITS
                    + ") i");
            s.execute("UPDATE gate_slot SET next_slot_at = clock_timestamp() + interval '1 hour'");
            // what Joins.join inserts: a program's WAITING calls in every class, leases longer than the run
            s.execute("""
                    INSERT INTO gate_call (limit_name, call_class, program, owner, state, lease_ms, lease_expires_at)
                    SELECT l.name, k % 5, 'scale-fill', 'program:scale-fill', 'WAITING', 300000,
                           clock_timestamp() + interval '2 hours'
                    FROM gate_limit l CROSS JOIN generate_series(1, ?) k""".replace("?", Integer.toString(callsPerLimit)));
            s.execute("VACUUM ANALYZE gate_limit, gate_slot, gate_call");
        }
    }

    /** Limit i's first slot is a second from now plus (i - 1) / LIMITS of a beat: some limit is due all the time. */
    private Instant spreadSlots(Connection sql) throws SQLException {
        Instant first = now(sql).plusSeconds(1);
        try (PreparedStatement ps = sql.prepareStatement("""
                UPDATE gate_slot SET next_slot_at = ?::timestamptz
                    + (substr(limit_name, %d)::int - 1) * ? * interval '1 microsecond'""".formatted(PREFIX.length() + 1))) {
            ps.setObject(1, OffsetDateTime.ofInstant(first, ZoneOffset.UTC));
            ps.setDouble(2, beat.toNanos() / 1000.0 / LIMITS);
            ps.executeUpdate();
        }
        return first;
    }

    /** How many slots came due between the first slot and the end, over every limit. */
    private long slotsDue(Instant firstSlot, Instant end) {
        long due = 0;
        double offsetNanos = (double) beat.toNanos() / LIMITS;
        for (int i = 0; i < LIMITS; i++) {
            long sinceFirst = Duration.between(firstSlot, end).toNanos() - (long) (i * offsetNanos);
            if (sinceFirst >= 0) {
                due += 1 + sinceFirst / beat.toNanos();
            }
        }
        return due;
    }

    /** Each send's lateness against its slot. */
    private static void readSends(Connection sql, Instant end, List<Double> lateness) throws SQLException {
        // only what was sent by the end: a pass running at the stop goes on a while (the stop waits 2 s at most)
        try (PreparedStatement ps = sql.prepareStatement(
                "SELECT sent_at, slot_at FROM gate_send WHERE sent_at <= ? ORDER BY id")) {
            ps.setObject(1, OffsetDateTime.ofInstant(end, ZoneOffset.UTC));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Instant sent = rs.getObject(1, OffsetDateTime.class).toInstant();
                    Instant slot = rs.getObject(2, OffsetDateTime.class).toInstant();
                    lateness.add(Duration.between(slot, sent).toNanos() / 1e6);
                }
            }
        }
    }

    @FunctionalInterface
    private interface Read {
        Object read() throws Exception;
    }

    /** Up to {@code times} timed reads after a warm-up, but no more once {@code budget} is spent. */
    private static Percentiles timed(int times, Duration budget, Read read) throws Exception {
        long until = System.nanoTime() + budget.toNanos();
        read.read(); // warm-up: the statement's first plan, the entities' first load
        List<Double> out = new ArrayList<>();
        for (int i = 0; i < times && System.nanoTime() < until; i++) {
            long t0 = System.nanoTime();
            read.read();
            out.add((System.nanoTime() - t0) / 1e6);
        }
        return new Percentiles(out);
    }

    private static Instant now(Connection sql) throws SQLException {
        try (Statement s = sql.createStatement(); ResultSet rs = s.executeQuery("SELECT clock_timestamp()")) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class).toInstant();
        }
    }

    static String name(int i) {
        return PREFIX + String.format("%05d", i);
    }
}
