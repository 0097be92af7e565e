package dev.gate.demo.worker;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * People opening the demo web app's quote page, one every {@code every} on average: each hit is an INTERACTIVE call
 * through the gate. Keeps each hit's wait in the line as the page reported it.
 */
public final class Visitors implements Runnable, AutoCloseable {

    private static final Pattern WAITED = Pattern.compile("\"waitedMicros\":(\\d+)");
    private static final String[] SYMBOLS = {"AAPL", "MSFT", "IBM", "SAP", "ASML"};

    private final String page;
    private final String query;
    private final Duration every;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Hit> hits = Collections.synchronizedList(new ArrayList<>());
    private final List<Integer> statuses = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean stopped;

    /**
     * @param page  the demo web app's quote page, e.g. {@code http://localhost:8080/demo-web/quote}
     * @param query after the symbol, e.g. {@code ?lang=en}, or empty
     */
    public Visitors(String page, String query, Duration every) {
        this.page = page.replaceAll("/+$", "");
        this.query = query;
        this.every = every;
    }

    @Override
    public void run() {
        while (!stopped) {
            String symbol = SYMBOLS[ThreadLocalRandom.current().nextInt(SYMBOLS.length)];
            try {
                long startedNanos = System.nanoTime();
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(page + "/" + symbol + query))
                        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
                statuses.add(r.statusCode());
                Matcher m = WAITED.matcher(r.body());
                if (m.find()) {
                    hits.add(new Hit(startedNanos, Long.parseLong(m.group(1))));
                }
                long pause = (long) (every.toMillis() * (0.5 + ThreadLocalRandom.current().nextDouble()));
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                statuses.add(-1);
            }
        }
    }

    /**
     * A hit the page answered with its wait.
     *
     * @param startedNanos {@link System#nanoTime()} when the hit was made
     * @param waitedMicros its wait in the line, as the page reported it
     */
    public record Hit(long startedNanos, long waitedMicros) {
    }

    /** Each answered hit, in order. */
    public List<Hit> hits() {
        synchronized (hits) {
            return List.copyOf(hits);
        }
    }

    /** Each hit's HTTP status (-1: no answer). */
    public List<Integer> statuses() {
        synchronized (statuses) {
            return List.copyOf(statuses);
        }
    }

    @Override
    public void close() {
        stopped = true;
    }
}
