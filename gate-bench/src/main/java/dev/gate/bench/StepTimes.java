package dev.gate.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.gate.api.CallClass;
import dev.gate.dev.GateDatabase;
import dev.gate.rules.Cost;
import dev.gate.store.CallKeys;
import dev.gate.store.Granter;
import dev.gate.store.Joins;
import dev.gate.store.Outcomes;
import dev.gate.store.Tx;

import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Where an uncontended grant's time goes, one caller, step by step, on the store's own transactions: an empty
 * transaction (the fixed cost of one), the join, the fast-path grant, the outcome. Prints p50/p99 of each.
 */
public final class StepTimes {

    private static final int ROUNDS = 2_000;

    // A program's owner: the grant passes over calls whose gate instance holds no instance lock, and this benchmark
    // runs no instance; a program renews its own leases.
    private static final String OWNER = dev.gate.store.InstanceLock.PROGRAM_OWNER_PREFIX + "step-times";

    private StepTimes() {
    }

    public static void main(String[] args) throws Exception {
        GateDatabase db = GateDatabase.fresh("gate_step_times");
        db.sql("INSERT INTO gate_limit (name, calls, window_ms) VALUES ('open', 1000000, 1000)");
        try (HikariDataSource pool = db.pool(4)) {
            Tx tx = new Tx(pool);
            Joins joins = new Joins(tx);
            Granter granter = new Granter(tx);
            Outcomes outcomes = new Outcomes(tx);
            List<Double> empty = new ArrayList<>();
            List<Double> select = new ArrayList<>();
            List<Double> join = new ArrayList<>();
            List<Double> grant = new ArrayList<>();
            List<Double> outcome = new ArrayList<>();
            List<Double> entered = new ArrayList<>();
            for (int i = 0; i < ROUNDS; i++) {
                boolean measured = i >= ROUNDS / 4; // the first quarter warms the JIT and the pool
                long t0 = System.nanoTime();
                tx.run(c -> null);
                long t1 = System.nanoTime();
                tx.run(c -> {
                    try (PreparedStatement ps = c.prepareStatement("SELECT 1")) {
                        ps.executeQuery().close();
                    }
                    return null;
                });
                long t2 = System.nanoTime();
                long id = joins.join("open", CallClass.INTERACTIVE, "bench", OWNER, Duration.ofSeconds(30),
                        null, CallKeys.NONE, callId -> { }).orElseThrow().id();
                long t3 = System.nanoTime();
                if (granter.grantDue("open").grants().size() != 1) {
                    throw new IllegalStateException("the grant pass granted nothing: the figures would be void");
                }
                long t4 = System.nanoTime();
                outcomes.record(id, null, 200, null);
                long t5 = System.nanoTime();
                Joins.Entered e = joins.joinAndGrant("open", CallClass.INTERACTIVE, Cost.ONE, "bench", OWNER,
                        Duration.ofSeconds(30), null, CallKeys.NONE, callId -> { }, pass -> { }).orElseThrow();
                long id2 = e.joined().id();
                if (e.pass().grants().size() != 1) {
                    throw new IllegalStateException("the fast path granted nothing: the figures would be void");
                }
                long t6 = System.nanoTime();
                outcomes.record(id2, null, 200, null);
                if (measured) {
                    empty.add((t1 - t0) / 1e6);
                    select.add((t2 - t1) / 1e6);
                    join.add((t3 - t2) / 1e6);
                    grant.add((t4 - t3) / 1e6);
                    outcome.add((t5 - t4) / 1e6);
                    entered.add((t6 - t5) / 1e6);
                }
            }
            System.out.println("where an uncontended grant's time goes (one caller, " + ROUNDS * 3 / 4 + " rounds):");
            System.out.println("  empty transaction (commit):                  " + new Percentiles(empty).summary());
            System.out.println("  one SELECT 1 in a transaction:               " + new Percentiles(select).summary());
            System.out.println("  join (Joins.join):                           " + new Percentiles(join).summary());
            System.out.println("  fast-path grant (Granter.grantDue):          " + new Percentiles(grant).summary());
            System.out.println("  outcome (Outcomes.record):                   " + new Percentiles(outcome).summary());
            System.out.println("  the gate's path: join and grant in one transaction (Joins.joinAndGrant): "
                    + new Percentiles(entered).summary());
        }
        db.server().stop();
    }
}
