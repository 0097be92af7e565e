package dev.gate.bench;

import jakarta.json.Json;
import jakarta.json.JsonObject;

import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code polls} long-polls held at once by one server: the limit is paused (a 429 with Retry-After), {@code polls}
 * calls join and each is awaited with {@code GET /calls/{id}?waitSeconds=60} on its own connection; when the pause
 * ends they are granted at the limit's pace. Figures: the server's threads while it holds them (against its idle
 * count), and how long after its grant each answer arrived (the grant's database time against the receipt, one host).
 */
final class LongPolls {

    record Figures(int polls, int answeredGranted, int idleThreads, int peakThreads, Percentiles answerAfterGrant,
                   int errors) {
    }

    private static final String LIMIT = "long-polls";

    private LongPolls() {
    }

    /** @param operator {@code name:password} of an operator, who declares the limit */
    static Figures run(String base, String user, String password, String operator, long serverPid, int polls)
            throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        String auth = "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8));
        String api = base + "/api/v1";
        String ops = "Basic " + Base64.getEncoder().encodeToString(operator.getBytes(StandardCharsets.UTF_8));
        // 200 per second: 1,000 calls drain in 5 s once the pause ends
        check(send(http, ops, "PUT", api + "/limits/" + LIMIT, "{\"calls\":200,\"windowSeconds\":1}"), 200, 201);
        JsonObject first = json(send(http, auth, "POST", api + "/limits/" + LIMIT + "/calls?waitSeconds=10",
                "{\"class\":\"SCHEDULED\",\"leaseSeconds\":120}"));
        check(send(http, auth, "POST", api + "/calls/" + first.getJsonNumber("id").longValue() + "/outcome",
                "{\"status\":429,\"retryAfterSeconds\":20}"), 204);
        int idle = threads(serverPid);

        // the calls join (16 at a time), all while the limit cools down
        List<Long> ids = Collections.synchronizedList(new ArrayList<>());
        ExecutorService submitters = Executors.newFixedThreadPool(16);
        List<Future<?>> joins = new ArrayList<>();
        for (int i = 0; i < polls; i++) {
            joins.add(submitters.submit(() -> {
                ids.add(json(send(http, auth, "POST", api + "/limits/" + LIMIT + "/calls",
                        "{\"class\":\"SCHEDULED\",\"leaseSeconds\":120}")).getJsonNumber("id").longValue());
                return null;
            }));
        }
        for (Future<?> f : joins) {
            f.get();
        }
        submitters.shutdown();

        AtomicInteger errors = new AtomicInteger();
        List<Double> afterGrant = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger granted = new AtomicInteger();
        List<CompletableFuture<Void>> answers = new ArrayList<>();
        for (long id : ids) {
            HttpRequest get = HttpRequest.newBuilder(URI.create(api + "/calls/" + id + "?waitSeconds=60"))
                    .header("Authorization", auth).timeout(Duration.ofSeconds(90)).GET().build();
            answers.add(http.sendAsync(get, HttpResponse.BodyHandlers.ofString()).thenAccept(r -> {
                Instant received = Instant.now();
                if (r.statusCode() != 200) {
                    errors.incrementAndGet();
                    return;
                }
                JsonObject call = Json.createReader(new StringReader(r.body())).readObject();
                if (call.getString("state").equals("GRANTED") || call.getString("state").equals("DONE")) {
                    granted.incrementAndGet();
                    afterGrant.add(Duration.between(Instant.parse(call.getString("grantedAt")), received)
                            .toNanos() / 1e6);
                }
            }).exceptionally(e -> {
                errors.incrementAndGet();
                return null;
            }));
        }
        // while the pause lasts every poll is held: the server's threads, sampled
        int peak = idle;
        CompletableFuture<Void> all = CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new));
        while (!all.isDone()) {
            peak = Math.max(peak, threads(serverPid));
            Thread.sleep(100);
        }
        all.get(120, TimeUnit.SECONDS);
        // the calls are done: their outcomes, so nothing stays granted
        for (long id : ids) {
            send(http, auth, "POST", api + "/calls/" + id + "/outcome", "{\"status\":200}");
        }
        return new Figures(polls, granted.get(), idle, peak, new Percentiles(afterGrant), errors.get());
    }

    /** The process's live threads (Linux), or -1 where there is no /proc. */
    static int threads(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("Threads:")) {
                    return Integer.parseInt(line.substring("Threads:".length()).trim());
                }
            }
        } catch (Exception e) {
            // not Linux, or the process is gone
        }
        return -1;
    }

    private static HttpResponse<String> send(HttpClient http, String auth, String method, String url, String body)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Authorization", auth)
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30));
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonObject json(HttpResponse<String> r) {
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException(r.request().method() + " " + r.request().uri() + " answered "
                    + r.statusCode() + ": " + r.body());
        }
        return Json.createReader(new StringReader(r.body())).readObject();
    }

    private static void check(HttpResponse<String> r, int... expected) {
        for (int e : expected) {
            if (r.statusCode() == e) {
                return;
            }
        }
        throw new IllegalStateException(r.request().method() + " " + r.request().uri() + " answered "
                + r.statusCode() + ": " + r.body());
    }
}
