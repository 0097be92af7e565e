package dev.gate.bench;

import dev.gate.dev.GateDatabase;
import dev.gate.dev.GateServer;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Flat for days: a gate at saturation over HTTP with a short retention, for minutes on end, sampled every minute
 * (server memory and threads, rows, dead rows and on-disk size per table, the database's size; each table's and
 * index's own size at the baseline and at the end). Prints the tables and
 * fails (exit 1) if, after the first retention cycle (finished calls: the retention; sends: their longest window plus
 * retention's send margin; then one prune), the database grows more than 10% over the rest of the run.
 *
 * <p>Arguments: the server directory, the EAR, minutes (default 30), retention (default 2m), callers (default 4),
 * port offset (default 0: a second soak beside a first runs on a copy of the server's folder with an offset), the
 * limit's calls per second (default 0: never reached, the host's most; a rate below it keeps the load the same
 * whatever else the host runs, so the rows retention keeps stay the same). The database: GATE_TEST_DB_URL's server
 * if set (e.g. this machine's service), else an embedded PostgreSQL.
 */
public final class Soak {

    /** Retention's margin on sends (Retention.SEND_MARGIN) plus the limit's 1 s window, then one prune. */
    private static final Duration SENDS_KEPT = Duration.ofMinutes(10).plusSeconds(1);
    private static final Duration PRUNE_EVERY = Duration.ofMinutes(1);
    private static final double GROWTH_ALLOWED = 0.10;

    private Soak() {
    }

    public static void main(String[] args) throws Exception {
        Path server = Path.of(args[0]);
        Path ear = Path.of(args[1]);
        int minutes = arg(args, 2, 30);
        String retention = args.length > 3 && !args[3].isBlank() ? args[3] : "2m";
        int callers = arg(args, 4, 4);
        int offset = arg(args, 5, 0);
        int rate = arg(args, 6, 0);
        Duration kept = dev.gate.rules.Span.parse(retention);
        Duration cycle = (kept.compareTo(SENDS_KEPT) > 0 ? kept : SENDS_KEPT).plus(PRUNE_EVERY);
        int baselineMinute = (int) Math.ceil(cycle.toSeconds() / 60.0) + 1;
        if (baselineMinute >= minutes) {
            throw new IllegalArgumentException("a soak of " + minutes + " minutes ends before its first retention "
                    + "cycle (minute " + baselineMinute + "): run it longer");
        }
        GateDatabase db = GateDatabase.fresh("gate_soak" + (offset == 0 ? "" : "_" + offset));
        Map<String, String> env = Map.of("GATE_DB_URL", db.server().url(db.name()), "GATE_DB_USER",
                db.server().user(), "GATE_DB_PASSWORD", HttpSide.password(db), "GATE_DEV_MODE", "true",
                "GATE_RETENTION", retention);
        List<Sample> samples = new ArrayList<>();
        try (GateServer gate = GateServer.start(server, List.of(ear), env, false, offset)) {
            if (!gate.awaitGate(Duration.ofMinutes(5))) {
                throw new IllegalStateException("the gate did not answer within 5 minutes: see "
                        + server.resolve("standalone/log/server.log"));
            }
            String where;
            try (Connection c = db.connect(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT current_setting('server_version') || ', autovacuum '"
                         + " || current_setting('autovacuum')")) {
                rs.next();
                where = "PostgreSQL " + rs.getString(1) + (System.getenv("GATE_TEST_DB_URL") == null
                        ? " (embedded)" : " (" + System.getenv("GATE_TEST_DB_URL") + ")");
            }
            System.out.printf("%nsoak: %d callers over HTTP at saturation (%s), retention %s, %d minutes, %s (%s, %d "
                    + "cores); baseline at minute %d (the first retention cycle)%n", callers,
                    rate > 0 ? "a limit of " + rate + " a second, always waited on" : "a limit never reached",
                    retention, minutes, where, LocalDate.now(), Runtime.getRuntime().availableProcessors(),
                    baselineMinute);
            System.out.println("| min | grants/s | errors | server RSS | threads | gate_call live / dead | "
                    + "gate_send live / dead | gate_call | gate_send | database |");
            System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
            URI api = URI.create(gate.base() + "/api/v1/");
            for (int minute = 1; minute <= minutes; minute++) {
                HttpPath.Figures f = HttpPath.run(api, "web", "web", "ops:ops", callers, 60, rate);
                Sample s = sample(db, gate.process().pid(), minute, f);
                samples.add(s);
                System.out.println(s);
            }
        } finally {
            db.server().stop();
        }
        Sample base = samples.get(baselineMinute - 1);
        long highest = samples.subList(baselineMinute - 1, samples.size()).stream()
                .mapToLong(Sample::databaseBytes).max().orElseThrow();
        double growth = (double) (highest - base.databaseBytes()) / base.databaseBytes();
        System.out.printf(Locale.ROOT, "database at minute %d: %s; largest after it: %s (%+.1f%%; allowed %+.0f%%)%n",
                baselineMinute, mb(base.databaseBytes()), mb(highest), growth * 100, GROWTH_ALLOWED * 100);
        Sample last = samples.get(samples.size() - 1);
        System.out.printf("%n| table or index | minute %d | minute %d |%n| --- | --- | --- |%n", base.minute(),
                last.minute());
        for (Map.Entry<String, Long> r : last.relations().entrySet()) {
            long before = base.relations().getOrDefault(r.getKey(), 0L);
            if (Math.max(before, r.getValue()) >= 100_000) {
                System.out.printf("| %s | %s | %s |%n", r.getKey(), mb(before), mb(r.getValue()));
            }
        }
        if (growth > GROWTH_ALLOWED) {
            System.out.println("FAILED: the database grew more than " + Math.round(GROWTH_ALLOWED * 100)
                    + "% after the first retention cycle");
            System.exit(1);
        }
        System.out.println("flat: within " + Math.round(GROWTH_ALLOWED * 100) + "% after the first retention cycle");
    }

    private record Sample(int minute, HttpPath.Figures load, long rssBytes, int threads, long callLive,
                          long callDead, long sendLive, long sendDead, long callBytes, long sendBytes,
                          long databaseBytes, Map<String, Long> relations) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "| %d | %,.0f | %d | %s | %d | %,d / %,d | %,d / %,d | %s | %s | %s |",
                    minute, load.grantsPerSecond(), load.errors(), mb(rssBytes), threads, callLive, callDead,
                    sendLive, sendDead, mb(callBytes), mb(sendBytes), mb(databaseBytes));
        }
    }

    private static Sample sample(GateDatabase db, long pid, int minute, HttpPath.Figures f) throws Exception {
        long rss = 0;
        int threads = 0;
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            } else if (line.startsWith("Threads:")) {
                threads = Integer.parseInt(line.replaceAll("[^0-9]", ""));
            }
        }
        // the server's process is the launcher's child: its JVM may be a grandchild (standalone.sh)
        long jvm = ProcessHandle.of(pid).flatMap(p -> p.descendants().filter(d -> d.info().command()
                .map(c -> c.endsWith("java")).orElse(false)).findFirst()).map(ProcessHandle::pid).orElse(pid);
        if (jvm != pid) {
            for (String line : Files.readAllLines(Path.of("/proc/" + jvm + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                } else if (line.startsWith("Threads:")) {
                    threads = Integer.parseInt(line.replaceAll("[^0-9]", ""));
                }
            }
        }
        try (Connection c = db.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                SELECT (SELECT n_live_tup FROM pg_stat_user_tables WHERE relname = 'gate_call') AS call_live,
                       (SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'gate_call') AS call_dead,
                       (SELECT n_live_tup FROM pg_stat_user_tables WHERE relname = 'gate_send') AS send_live,
                       (SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'gate_send') AS send_dead,
                       pg_total_relation_size('gate_call') AS call_bytes,
                       pg_total_relation_size('gate_send') AS send_bytes,
                       pg_database_size(current_database()) AS db_bytes""")) {
            rs.next();
            return new Sample(minute, f, rss, threads, rs.getLong("call_live"), rs.getLong("call_dead"),
                    rs.getLong("send_live"), rs.getLong("send_dead"), rs.getLong("call_bytes"),
                    rs.getLong("send_bytes"), rs.getLong("db_bytes"), relations(c));
        }
    }

    /** Each gate table's and index's own size on disk. */
    private static Map<String, Long> relations(Connection c) throws Exception {
        Map<String, Long> sizes = new java.util.TreeMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                SELECT c.relname, pg_relation_size(c.oid) AS bytes FROM pg_class c
                JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND c.relname LIKE 'gate\\_%' AND c.relkind IN ('r', 'i')""")) {
            while (rs.next()) {
                sizes.put(rs.getString(1), rs.getLong(2));
            }
        }
        return sizes;
    }

    private static int arg(String[] args, int i, int otherwise) {
        return args.length > i && !args[i].isBlank() ? Integer.parseInt(args[i].trim()) : otherwise;
    }

    private static String mb(long bytes) {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
    }
}
