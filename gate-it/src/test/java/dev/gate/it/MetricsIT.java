package dev.gate.it;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The gate's metrics as Prometheus scrapes them (the server's Micrometer registry, management port): the counters
 * move by exactly what was done over HTTP, the line's gauges show who waits, and the database's state is a gauge.
 */
class MetricsIT extends GateDeployedAlone {

    private static final URI PROMETHEUS = URI.create("http://127.0.0.1:9990/prometheus");

    @Test
    void countersMoveByExactlyTheGrantsMadeAndTheGaugesShowTheLine() throws Exception {
        Api.put("ops", "/limits/metrics-open", "{\"calls\":1000,\"windowSeconds\":1}");
        Scrape before = scrape();
        int grants = 7;
        for (int i = 0; i < grants; i++) {
            Api.Answer call = Api.post("web", "/limits/metrics-open/calls?waitSeconds=10", "{\"class\":\"MANUAL\"}");
            assertEquals("GRANTED", call.json().getString("state"), call.body());
            assertEquals(204, Api.post("web", "/calls/" + call.json().getJsonNumber("id").longValue() + "/outcome",
                    "{\"status\":200}").status());
        }
        Scrape after = scrape();
        String manual = "limit=\"metrics-open\",class=\"MANUAL\"";
        assertEquals(grants, after.value("gate_grants_total", manual) - before.value("gate_grants_total", manual),
                after.text);
        assertEquals(grants, after.value("gate_wait_seconds_count", manual)
                - before.value("gate_wait_seconds_count", manual), "every grant's wait is in the histogram");
        assertEquals(grants, after.value("gate_wait_buckets_total", manual + ",le=\"+Inf\"")
                - before.value("gate_wait_buckets_total", manual + ",le=\"+Inf\""), "and in its buckets");
        assertTrue(after.value("gate_wait_buckets_total", manual + ",le=\"1\"")
                - before.value("gate_wait_buckets_total", manual + ",le=\"1\"") == grants,
                "an open limit grants within a second");
        assertEquals(1.0, after.value("gate_database_up", ""), "the database is up");
        assertEquals(0.0, before.value("gate_grants_total", "limit=\"metrics-open\",class=\"INTERACTIVE\""),
                "no other class counted");

        // a line that waits: one call takes the only slot of the minute, three wait behind it
        Api.put("ops", "/limits/metrics-slow",
                "{\"calls\":1,\"windowSeconds\":60,\"rules\":[{\"calls\":100,\"windowSeconds\":3600}]}");
        Api.post("web", "/limits/metrics-slow/calls", "{\"class\":\"SCHEDULED\"}");
        for (int i = 0; i < 3; i++) {
            assertEquals("WAITING", Api.post("worker", "/limits/metrics-slow/calls", "{\"class\":\"BACKFILL\"}")
                    .json().getString("state"));
        }
        String slowBackfill = "limit=\"metrics-slow\",class=\"BACKFILL\"";
        Scrape lined = until(s -> s.value("gate_waiting", slowBackfill) == 3.0, Duration.ofSeconds(20));
        assertEquals(0.0, lined.value("gate_waiting", "limit=\"metrics-slow\",class=\"INTERACTIVE\""));
        assertTrue(lined.value("gate_oldest_wait_seconds", slowBackfill) >= 0, lined.text);
        assertEquals(1.0, lined.value("gate_window_used", "limit=\"metrics-slow\",rule=\"1/60000ms\""));
        assertEquals(1.0, lined.value("gate_window_limit", "limit=\"metrics-slow\",rule=\"1/60000ms\""));
        assertEquals(1.0, lined.value("gate_window_used", "limit=\"metrics-slow\",rule=\"100/3600000ms\""),
                "every rule of the limit has its gauges");
        assertEquals(100.0, lined.value("gate_window_limit", "limit=\"metrics-slow\",rule=\"100/3600000ms\""));
        assertEquals(0.0, lined.value("gate_paused", "limit=\"metrics-slow\""));

        // a dedupe join saves a send, and is counted
        Api.post("web", "/limits/metrics-slow/calls", "{\"class\":\"SCHEDULED\",\"dedupeKey\":\"k\"}");
        Scrape beforeJoin = scrape();
        assertEquals(200, Api.post("worker", "/limits/metrics-slow/calls",
                "{\"class\":\"SCHEDULED\",\"dedupeKey\":\"k\"}").status());
        assertEquals(1.0, scrape().value("gate_dedupe_joins_total", "limit=\"metrics-slow\"")
                - beforeJoin.value("gate_dedupe_joins_total", "limit=\"metrics-slow\""));
    }

    @Test
    void theGateTablesAreGaugedWithWhetherAutovacuumLooksAfterThem() throws Exception {
        String call = "table=\"gate_call\"";
        Scrape s = until(x -> x.value("gate_table_size_bytes", call) > 0, Duration.ofSeconds(20));
        assertTrue(s.text.contains("gate_table_dead_rows{"), "dead rows per table");
        assertTrue(s.text.contains("gate_table_live_rows{"), "live rows per table");
        assertTrue(s.text.contains("gate_vacuum_held_back_seconds"), "the age of the oldest transaction holding vacuum back");
        // the migration leaves autovacuum on for the tables: it is on for them exactly when it is on in the server
        double on = ItDatabase.count("SELECT CASE WHEN current_setting('autovacuum')::boolean THEN 1 ELSE 0 END");
        assertEquals(on, s.value("gate_table_autovacuum", call), s.text);
        assertEquals(1.0, s.value("gate_self_vacuum", ""), "the gate vacuums where autovacuum does not (default)");
    }

    @Test
    void whileTheDatabaseIsCutTheGaugeSaysDownAndEachPausedCallIsCounted() throws Exception {
        Api.put("ops", "/limits/metrics-cut", "{\"calls\":5,\"windowSeconds\":1}");
        Scrape before = scrape();
        ItDatabase.proxy.cut();
        try {
            int refused = 0;
            for (int i = 0; i < 3; i++) {
                if (Api.post("web", "/limits/metrics-cut/calls", "{\"class\":\"MANUAL\"}").status() == 503) {
                    refused++;
                }
            }
            assertEquals(3, refused, "every call is turned away while the database is cut");
            Scrape cut = until(s -> s.value("gate_database_up", "") == 0.0, Duration.ofSeconds(10));
            assertEquals(3.0, cut.value("gate_turned_away_total", "reason=\"paused\"")
                    - before.value("gate_turned_away_total", "reason=\"paused\""), cut.text);
        } finally {
            ItDatabase.proxy.restore();
        }
        until(s -> s.value("gate_database_up", "") == 1.0, Duration.ofSeconds(10));
    }

    /** One scrape, parsed: series (name and labels as written) to value. */
    record Scrape(String text, Map<String, Double> series) {

        // name{labels} value, or name value (Prometheus text format 0.0.4)
        private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?\\s+(\\S+)");

        static Scrape of(String text) {
            Map<String, Double> series = new HashMap<>();
            for (String line : text.split("\n")) {
                if (line.startsWith("#") || line.isBlank()) {
                    continue;
                }
                Matcher m = LINE.matcher(line);
                if (m.find()) {
                    series.put(m.group(1) + "|" + (m.group(3) == null ? "" : m.group(3)),
                            Double.parseDouble(m.group(4)));
                }
            }
            return new Scrape(text, series);
        }

        /**
         * The value of the one series of {@code name} whose labels include every pair of {@code labels} (the server
         * may add its own); 0 when there is none (a counter not yet moved). Fails if several match.
         */
        double value(String name, String labels) {
            Double found = null;
            for (Map.Entry<String, Double> e : series.entrySet()) {
                String[] nameAndLabels = e.getKey().split("\\|", 2);
                if (nameAndLabels[0].equals(name) && hasAll(nameAndLabels[1], labels)) {
                    assertTrue(found == null, "several series of " + name + " with " + labels + ":\n" + text);
                    found = e.getValue();
                }
            }
            return found == null ? 0.0 : found;
        }

        private static boolean hasAll(String have, String want) {
            if (want.isEmpty()) {
                return true;
            }
            for (String pair : want.split(",(?=[a-z_]+=)")) {
                if (!("," + have + ",").contains("," + pair + ",")) {
                    return false;
                }
            }
            return true;
        }
    }

    private static Scrape scrape() {
        Api.Answer answer = Api.at(null, "GET", PROMETHEUS, null);
        assertEquals(200, answer.status(), answer.body());
        return Scrape.of(answer.body());
    }

    private static Scrape until(Predicate<Scrape> condition, Duration within) throws InterruptedException {
        long t0 = System.nanoTime();
        Scrape last = null;
        while (System.nanoTime() - t0 < within.toNanos()) {
            last = scrape();
            if (condition.test(last)) {
                return last;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the metrics never showed it within " + within + ":\n"
                + (last == null ? "" : last.text));
    }
}
