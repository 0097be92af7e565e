package dev.gate.bench;

import dev.gate.api.LimitSpec;
import dev.gate.dev.GateDatabase;
import dev.gate.engine.Engine;
import dev.gate.rules.LimitKey;
import dev.gate.store.Jpa;
import dev.gate.store.IdleKeys;
import dev.gate.store.Keys;
import dev.gate.store.LineView;
import dev.gate.store.Tx;
import dev.gate.store.WaitingLines;
import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Keyed limits at scale: does a keyed limit's 100,000 idle keys slow the slot loop for the others? One gate copy runs
 * a plain limit (50 per second, a line always waiting) for {@code args[0]} seconds (default 20) with no key, then
 * again beside 100,000 idle keys of a keyed limit; printed side by side: the plain limit's grants and their
 * lateness against the beat, the loop's read of the limits with waiting calls, the status read, a key's open (an
 * existing key, a new one), and the sweep that removes the idle keys.
 */
public final class KeyFigures {

    static final int KEYS = 100_000;

    private KeyFigures() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 && !args[0].isBlank() ? Integer.parseInt(args[0]) : 20;
        GateDatabase db = GateDatabase.fresh("gate_key_figures");
        FigureTable table = new FigureTable(String.format("keyed limits: a plain limit at 50/s beside a keyed "
                + "limit's idle keys, one gate copy, %d s each", seconds), "figure", "no keys",
                String.format("%,d idle keys", KEYS));
        Run none = run(db, seconds, 0);
        Run many = run(db, seconds, KEYS);
        String[] names = {"plain limit's grants (50/s)", "their lateness p50 / p99 / max",
                "loop's read of the limits with waiting calls", "status read (all limits)", "open an existing key",
                "open a new key", "sweep of the idle keys"};
        for (int i = 0; i < names.length; i++) {
            String target = i == 0 ? "at least 98% of no keys'" : i == 2 ? "p50 under 5 ms" : "-";
            Boolean holds = null;
            if (i == 0) {
                holds = many.grants >= none.grants * 0.98;
            } else if (i == 2) {
                holds = many.waitingReadP50 < 5;
            }
            table.row(List.of(names[i], none.cells[i], many.cells[i]), target, holds);
        }
        table.print();
    }

    private record Run(String[] cells, long grants, double waitingReadP50) {
    }

    private static Run run(GateDatabase db, int seconds, int keys) throws Exception {
        try (Connection sql = db.connect(); Statement s = sql.createStatement()) {
            s.execute("DELETE FROM gate_call");
            s.execute("DELETE FROM gate_limit WHERE template_name IS NOT NULL");
            s.execute("DELETE FROM gate_limit");
        }
        List<AutoCloseable> copy = new ArrayList<>();
        Engine engine = BenchCopies.start("key-figures", db, copy);
        String[] out = new String[7];
        long grants;
        double waitingRead;
        try (HikariDataSource pool = db.pool(4); Jpa jpa = new Jpa(pool)) {
            engine.limits().put("vendor", LimitSpec.of(50, Duration.ofSeconds(1)));
            engine.limits().put("user-api", LimitSpec.of(10, Duration.ofSeconds(1)).withKeyed(true)
                    .withMaxKeys(Math.max(keys * 2, 100_000))); // room for every idle key and more
            try (Connection sql = db.connect(); Statement s = sql.createStatement()) {
                // what Keys.open writes, for many keys at once: idle keys, no call, no send
                s.execute("""
                        INSERT INTO gate_limit (name, template_name, limit_key, key_used_at, calls, window_ms)
                        SELECT 'user-api~k' || i, 'user-api', 'k' || i, clock_timestamp(), 10, 1000
                        FROM generate_series(1, %d) i""".formatted(keys));
                s.execute("""
                        INSERT INTO gate_call (limit_name, call_class, program, owner, state, lease_ms, lease_expires_at)
                        SELECT 'vendor', 2, 'bench', 'program:bench', 'WAITING', 300000, clock_timestamp() + interval '1 hour'
                        FROM generate_series(1, %d)""".formatted(50 * (seconds + 5)));
                s.execute("VACUUM ANALYZE gate_limit, gate_slot, gate_call");
                s.execute("UPDATE gate_slot SET next_slot_at = clock_timestamp() WHERE limit_name = 'vendor'");
            }
            engine.callers(); // the loop grants the line on its own from here
            Thread.sleep(1_000L);
            long from = System.currentTimeMillis();
            Thread.sleep(seconds * 1_000L);
            Tx tx = new Tx(pool);
            WaitingLines limits = new WaitingLines(tx);
            LineView view = new LineView(jpa);
            Keys keyRows = new Keys(tx);
            IdleKeys idleKeys = new IdleKeys(tx);
            try (Connection sql = db.connect(); Statement s = sql.createStatement();
                 ResultSet rs = s.executeQuery("""
                         SELECT count(*), percentile_disc(0.5) WITHIN GROUP (ORDER BY late),
                                percentile_disc(0.99) WITHIN GROUP (ORDER BY late), max(late)
                         FROM (SELECT extract(epoch FROM sent_at - slot_at) * 1000 AS late FROM gate_send
                               WHERE limit_name = 'vendor' AND sent_at > clock_timestamp() - %d * interval '1 second') x"""
                         .formatted(seconds))) {
                rs.next();
                grants = rs.getLong(1);
                out[0] = String.format("%d in %d s", grants, seconds);
                out[1] = String.format("%.1f / %.1f / %.1f ms", rs.getDouble(2), rs.getDouble(3), rs.getDouble(4));
            }
            Percentiles read = timed(50, limits::withWaitingCalls);
            waitingRead = read.at(0.5);
            out[2] = read.summary();
            out[3] = timed(10, view::limits).summary();
            out[4] = timed(200, () -> keyRows.open(new LimitKey("user-api", "hot"))).summary();
            int[] next = {0};
            out[5] = timed(200, () -> keyRows.open(new LimitKey("user-api", "new-" + next[0]++))).summary();
            engine.stop();
            long t0 = System.nanoTime();
            int swept = 0;
            for (boolean more = true; more; ) {
                IdleKeys.Swept n = idleKeys.sweep(Duration.ZERO, 500);
                swept += n.removed().size();
                more = n.looked() > 0 && (!n.removed().isEmpty() || n.history() > 0);
            }
            out[6] = String.format("%,d keys in %.1f s", swept, (System.nanoTime() - t0) / 1e9);
            if (System.currentTimeMillis() < from) {
                throw new IllegalStateException("clock went back");
            }
        } finally {
            for (AutoCloseable r : copy) {
                r.close();
            }
        }
        return new Run(out, grants, waitingRead);
    }

    @FunctionalInterface
    private interface Read {
        Object read() throws Exception;
    }

    private static Percentiles timed(int times, Read read) throws Exception {
        read.read();
        List<Double> out = new ArrayList<>();
        for (int i = 0; i < times; i++) {
            long t0 = System.nanoTime();
            read.read();
            out.add((System.nanoTime() - t0) / 1e6);
        }
        return new Percentiles(out);
    }
}
