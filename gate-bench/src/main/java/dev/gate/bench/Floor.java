package dev.gate.bench;

import dev.gate.dev.GateDatabase;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * This machine's floor for a grant: pgbench (autocommit, prepared) repeating the one statement a shape needs, on the
 * bench's own database and server, with no Java, pool or decision in the way. Two shapes: the gate's (a grant moves
 * its slot row and writes its send, in the gate's own tables: their indexes and key checks are paid) and Bucket4j's
 * (one UPDATE of one row). On one hot row both are bounded by the row's lock and the commit's WAL flush.
 */
final class Floor {

    /** A shape's floor at some clients: statements per second and the mean latency. */
    record Figure(double perSecond, double latencyMs) {

        @Override
        public String toString() {
            return Double.isNaN(perSecond) ? "n/a" : String.format("%,7.0f /s (%.2f ms)", perSecond, latencyMs);
        }
    }

    static final Figure NONE = new Figure(Double.NaN, Double.NaN);

    // The gate's shape for a consume without a key: the slot row's beat and number moved, one send recording who
    // consumed (the partial index of such sends included), in one statement.
    private static final String GATE_SHAPE = """
            WITH s AS (UPDATE gate_slot SET send_seq = send_seq + 1, next_slot_at = clock_timestamp() \
            WHERE limit_name = 'floor' RETURNING send_seq) \
            INSERT INTO gate_send (limit_name, call_id, sent_at, slot_at, seq, program, owner, call_class) \
            SELECT 'floor', nextval('gate_call_id_seq'), clock_timestamp(), clock_timestamp(), send_seq, 'bench', \
            'floor', 0 FROM s;
            """;

    // Bucket4j's shape: its bucket's state rewritten in place.
    private static final String BUCKET_SHAPE = "UPDATE floor_bucket SET tokens = tokens - 1 WHERE id = 1;\n";

    private static final Pattern TPS = Pattern.compile("tps = ([0-9.]+)");
    private static final Pattern LATENCY = Pattern.compile("latency average = ([0-9.]+) ms");

    private final GateDatabase db;
    private final Path pgbench;
    private final Path gateScript;
    private final Path bucketScript;

    private Floor(GateDatabase db, Path pgbench) throws Exception {
        this.db = db;
        this.pgbench = pgbench;
        db.sql("INSERT INTO gate_limit (name, calls, window_ms) VALUES ('floor', 1000000, 1000) ON CONFLICT DO NOTHING");
        db.sql("CREATE TABLE IF NOT EXISTS floor_bucket (id int PRIMARY KEY, tokens bigint NOT NULL)");
        db.sql("INSERT INTO floor_bucket VALUES (1, 0) ON CONFLICT DO NOTHING");
        this.gateScript = Files.createTempFile("floor-gate", ".sql");
        this.bucketScript = Files.createTempFile("floor-bucket", ".sql");
        Files.writeString(gateScript, GATE_SHAPE);
        Files.writeString(bucketScript, BUCKET_SHAPE);
    }

    /** The floor on {@code db}'s server, or empty (said why) when pgbench is not installed here. */
    static Optional<Floor> on(GateDatabase db) throws Exception {
        Optional<Path> pgbench = binary();
        if (pgbench.isEmpty()) {
            System.out.println("(the floor: pgbench is not installed here, so it is not measured)");
            return Optional.empty();
        }
        return Optional.of(new Floor(db, pgbench.get()));
    }

    private static Optional<Path> binary() {
        List<Path> candidates = new ArrayList<>();
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            candidates.add(Path.of(dir.isEmpty() ? "." : dir, "pgbench"));
        }
        try (var versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            versions.sorted(java.util.Comparator.reverseOrder()).forEach(v -> candidates.add(v.resolve("bin/pgbench")));
        } catch (IOException none) {
            // not a Debian layout
        }
        return candidates.stream().filter(Files::isExecutable).findFirst();
    }

    /** The gate's shape at {@code clients}, all on one slot row, for {@code seconds}. */
    Figure gate(int clients, int seconds) throws Exception {
        return run(gateScript, clients, seconds);
    }

    /** Bucket4j's shape at {@code clients}, all on one row, for {@code seconds}. */
    Figure bucket(int clients, int seconds) throws Exception {
        return run(bucketScript, clients, seconds);
    }

    private Figure run(Path script, int clients, int seconds) throws Exception {
        var server = db.server();
        ProcessBuilder pb = new ProcessBuilder(pgbench.toString(), "-n", "-M", "prepared", "-c",
                Integer.toString(clients), "-j", Integer.toString(Math.min(clients, 4)), "-T",
                Integer.toString(seconds), "-f", script.toString(), "-h", server.host(), "-p",
                Integer.toString(server.port()), "-U", server.user(), db.name());
        pb.environment().put("PGPASSWORD", server.password());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(seconds + 60L, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            System.out.println("(the floor: pgbench failed: " + out.strip() + ")");
            return NONE;
        }
        Matcher tps = TPS.matcher(out);
        Matcher latency = LATENCY.matcher(out);
        return tps.find() && latency.find()
                ? new Figure(Double.parseDouble(tps.group(1)), Double.parseDouble(latency.group(1))) : NONE;
    }
}
