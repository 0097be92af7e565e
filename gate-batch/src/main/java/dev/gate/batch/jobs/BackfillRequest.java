package dev.gate.batch.jobs;

import dev.gate.batch.GateProperties;
import dev.gate.batch.history.HistoryRange;
import dev.gate.app.Names;

import java.net.URI;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * A backfill's parameters, checked before a job starts (a bad one names itself; nothing starts): {@code limit},
 * {@code symbols}, {@code from}, {@code to}, {@code vendorUrl}; optional {@code class} (BACKFILL),
 * {@code checkpointEvery} (10), {@code maxWait} (PT10M) and {@code retries} (20).
 */
public record BackfillRequest(Properties parameters, int items) {

    public static final Set<String> NAMES = Set.of("limit", "symbols", "from", "to", "vendorUrl", "class",
            "checkpointEvery", "maxWait", "retries");

    public static BackfillRequest parse(Map<String, String> given) {
        Set<String> unknown = new TreeSet<>(given.keySet());
        unknown.removeAll(NAMES);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown parameters " + unknown + "; known: " + new TreeSet<>(NAMES));
        }
        String limit = given.get("limit");
        if (limit == null || !Names.isValid(limit)) {
            throw new IllegalArgumentException("limit is required: a limit's name, was '" + limit + "'");
        }
        HistoryRange range = HistoryRange.parse(given.get("symbols"), given.get("from"), given.get("to"));
        vendorUrl(given.get("vendorUrl"));
        GateProperties.parse(limit, given.get("class"), given.get("maxWait"), given.get("retries"), "historyFetch",
                null, null);
        String every = given.get("checkpointEvery");
        if (every != null && !every.matches("\\d{1,4}") || every != null && (Integer.parseInt(every) < 1
                || Integer.parseInt(every) > 1000)) {
            throw new IllegalArgumentException("checkpointEvery must be 1..1000 items, was '" + every + "'");
        }
        Properties p = new Properties();
        given.forEach((k, v) -> {
            if (v != null && !v.isBlank()) {
                p.setProperty(k, v.trim());
            }
        });
        return new BackfillRequest(p, range.size());
    }

    /** Items the job's parameters walk (symbols x days). */
    public static int items(Properties parameters) {
        return HistoryRange.parse(parameters.getProperty("symbols"), parameters.getProperty("from"),
                parameters.getProperty("to")).size();
    }

    private static void vendorUrl(String value) {
        try {
            URI uri = URI.create(value == null ? "" : value.trim());
            if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
                return;
            }
        } catch (IllegalArgumentException e) {
            // answered below
        }
        throw new IllegalArgumentException("vendorUrl must be an http(s) URL, was '" + value + "'");
    }
}
