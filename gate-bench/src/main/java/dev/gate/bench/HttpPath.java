package dev.gate.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Scenario 1 over HTTP against a running gate: 1, 4 and 16 callers, each looping "submit with waitSeconds until
 * GRANTED, then report the outcome" on a limit never reached, over HTTP/1.1 keep-alive with Basic credentials. The
 * latency is the submit request until its answer says GRANTED. Nothing may be lost: every submission must be
 * answered 201 GRANTED and its outcome 204, and the line must be empty afterwards.
 *
 * <p>Arguments: base URL (e.g. {@code http://localhost:8080/gate/api/v1}), caller account, its password, seconds
 * per cell (default 5), an operator {@code name:password} to declare the limit (default {@code ops:ops}), the
 * caller counts (default {@code 1,4,16}).
 */
public final class HttpPath {

    static final String LIMIT = "http-path-open";
    private static final Pattern ID = Pattern.compile("\"id\":(\\d+)");
    private static final String GRANTED = "\"state\":\"GRANTED\"";

    /**
     * One cell: grants per second, grant latency, failed cycles (any answer but 201 GRANTED then 204, or no answer),
     * cycles started but not completed, calls still waiting in the line afterwards, host CPU busy (%).
     */
    public record Figures(int callers, double grantsPerSecond, double p50Ms, double p99Ms, long errors, long lost,
                          long leftWaiting, double cpuBusy) {

        @Override
        public String toString() {
            return String.format("| %2d | %,7.0f /s | %6.2f ms | %6.2f ms | %d | %d | %d | %3.0f%% |", callers,
                    grantsPerSecond, p50Ms, p99Ms, errors, lost, leftWaiting, cpuBusy);
        }
    }

    private HttpPath() {
    }

    public static void main(String[] args) throws Exception {
        URI base = URI.create(args[0].endsWith("/") ? args[0] : args[0] + "/");
        int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        String operator = args.length > 4 ? args[4] : "ops:ops";
        String counts = args.length > 5 ? args[5] : "1,4,16";
        System.out.println("| callers | grants | p50 | p99 | errors | lost | left waiting | host cpu |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- |");
        for (String c : counts.split(",")) {
            System.out.println(run(base, args[1], args[2], operator, Integer.parseInt(c.trim()), seconds));
        }
    }

    /** Declares the limit (never reached), warms up for a second, then measures {@code callers} for {@code seconds}. */
    public static Figures run(URI base, String user, String password, String operator, int callers, int seconds)
            throws Exception {
        return run(base, user, password, operator, callers, seconds, 0);
    }

    /**
     * As above on a limit of {@code callsPerSecond} (0: never reached): its callers then always wait for its slots,
     * a load of one rate whatever else the host runs.
     */
    public static Figures run(URI base, String user, String password, String operator, int callers, int seconds,
                              int callsPerSecond) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        Client caller = new Client(http, base, basic(user + ":" + password));
        Client ops = new Client(http, base, basic(operator));
        // as SideBySide's limit: a burst allowance of 1 ms of its rate (-Dbench.open.burst)
        String declared = callsPerSecond > 0 ? "{\"calls\":" + callsPerSecond + ",\"windowSeconds\":1}"
                : "{\"calls\":1000000,\"windowSeconds\":1,\"burst\":" + Integer.getInteger("bench.open.burst", 1_000)
                + "}";
        int put = ops.send("PUT", "limits/" + LIMIT, declared).statusCode();
        if (put != 200 && put != 201) {
            throw new IllegalStateException("PUT limits/" + LIMIT + " answered " + put);
        }
        cycles(caller, callers, 1, new ArrayList<>(), new AtomicLong(), new AtomicLong());
        List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
        AtomicLong errors = new AtomicLong();
        AtomicLong started = new AtomicLong();
        long[] cpu0 = Cells.cpu();
        long t0 = System.nanoTime();
        long completed = cycles(caller, callers, seconds, latencies, errors, started);
        double elapsed = (System.nanoTime() - t0) / 1e9;
        double busy = Cells.busy(cpu0, Cells.cpu());
        Percentiles p = new Percentiles(latencies);
        return new Figures(callers, latencies.size() / elapsed, p.at(0.50), p.at(0.99), errors.get(),
                started.get() - completed, waiting(caller), busy);
    }

    /** Each caller loops submit-until-granted + outcome; answers the cycles completed (both answers as expected). */
    private static long cycles(Client client, int callers, int seconds, List<Double> latencies, AtomicLong errors,
                               AtomicLong started) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<Future<Long>> done = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            done.add(pool.submit(() -> {
                long n = 0;
                while (System.nanoTime() < until) {
                    started.incrementAndGet();
                    try {
                        long t = System.nanoTime();
                        HttpResponse<String> submit = client.send("POST", "limits/" + LIMIT + "/calls?waitSeconds=30",
                                "{\"class\":\"INTERACTIVE\"}");
                        Matcher id = ID.matcher(submit.body());
                        if (submit.statusCode() != 201 || !submit.body().contains(GRANTED) || !id.find()) {
                            errors.incrementAndGet();
                            continue;
                        }
                        latencies.add((System.nanoTime() - t) / 1e6);
                        if (client.send("POST", "calls/" + id.group(1) + "/outcome", "{\"status\":200}")
                                .statusCode() != 204) {
                            errors.incrementAndGet();
                            continue;
                        }
                        n++;
                    } catch (IOException e) {
                        errors.incrementAndGet();
                    }
                }
                return n;
            }));
        }
        long total = 0;
        for (Future<Long> f : done) {
            total += f.get();
        }
        pool.shutdown();
        return total;
    }

    /** Calls of the limit still waiting in the line (every class): a submission the gate lost would stay there. */
    private static long waiting(Client client) throws Exception {
        String body = client.send("GET", "limits/" + LIMIT, null).body();
        Matcher m = Pattern.compile("\"waiting\":\\{([^}]*)}").matcher(body);
        if (!m.find()) {
            throw new IllegalStateException("no waiting counts in " + body);
        }
        long sum = 0;
        for (Matcher n = Pattern.compile(":(\\d+)").matcher(m.group(1)); n.find(); ) {
            sum += Long.parseLong(n.group(1));
        }
        return sum;
    }

    static String basic(String nameAndPassword) {
        return "Basic " + Base64.getEncoder().encodeToString(nameAndPassword.getBytes(StandardCharsets.UTF_8));
    }

    /** Requests with preemptive Basic credentials (the client's Authenticator would wait for a 401 first). */
    record Client(HttpClient http, URI base, String authorization) {

        HttpResponse<String> send(String method, String path, String json) throws IOException, InterruptedException {
            HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(60))
                    .header("Authorization", authorization);
            if (json != null) {
                b.header("Content-Type", "application/json");
            }
            b.method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(json));
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        }
    }
}
