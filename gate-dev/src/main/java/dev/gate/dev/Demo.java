package dev.gate.dev;

import dev.gate.demo.worker.DemoWorker;
import dev.gate.demo.worker.Visitors;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The demo's story once the gate runs ({@code mvn -Prun -Pdemo}): the backfill job over a year of five symbols, the
 * worker's snapshots and follow-ups, and people on the demo web app's page, all on the vendor's one limit
 * ({@value #LIMIT_DECLARATION}); every 15 s a line with the vendor's own counters.
 */
final class Demo implements AutoCloseable {

    static final String LIMIT = "demo-vendor";
    static final String LIMIT_DECLARATION = LIMIT + "=10/1s";

    /** The demo vendor's daily quota, on its calendar: more than a day at 10 a second, so the beat stays 100 ms. */
    static final String DAILY_QUOTA = "{\"calls\":1000000,\"windowSeconds\":86400,"
            + "\"aligned\":{\"zone\":\"America/Los_Angeles\",\"at\":\"00:00\"}}";
    static final int RECEIPT_MARGIN_MS = 40;
    /** The vendor's window (1 s) and a half. */
    static final long WARM_UP_LEAVES_MS = 1_500;

    private final String base;
    private final DemoWorker worker;
    private final Visitors people;
    private final ScheduledExecutorService report = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "demo-report");
        t.setDaemon(true);
        return t;
    });
    private final HttpClient http = HttpClient.newHttpClient();

    private Demo(String base) {
        this.base = base;
        this.worker = new DemoWorker(URI.create(base + "/gate/api/v1"), "worker", "worker", base + "/demo-vendor",
                LIMIT, List.of("store-1", "store-2", "store-3"), Duration.ofSeconds(5));
        this.people = new Visitors(base + "/demo-web/quote", "", Duration.ofMillis(1500));
    }

    /** @param base e.g. {@code http://localhost:8080} */
    static Demo start(String base) throws IOException, InterruptedException {
        Demo demo = new Demo(base);
        // the worker's grants reach the vendor over HTTP, tens of ms later than the grant: each window is counted with
        // a margin for that (README, "The receipt margin"), else the vendor's own clock sees 11 in a window now and then
        // and the vendor's daily quota on its own calendar (midnight in Los Angeles): the status page shows "used
        // today, resets in"
        demo.send("PUT", base + "/gate/api/v1/limits/" + LIMIT, "{\"calls\":10,\"windowSeconds\":1,"
                + "\"receiptMarginMs\":" + RECEIPT_MARGIN_MS + ",\"rules\":[" + DAILY_QUOTA + "]}");
        // each path once first, alone: a fresh deployment's first call is slow (class loading, first connections),
        // and a grant that reaches the vendor late can make its own clock count one more in a window than the gate did.
        // Two page hits: the second waits for the first one's slot, so the waiting path runs too
        say("demo: a first page hit (warm-up): " + demo.send("GET", base + "/demo-web/quote/WARM", null));
        say("demo: a second page hit (warm-up): " + demo.send("GET", base + "/demo-web/quote/WARM", null));
        String warm = demo.send("POST", base + "/gate/api/v1/jobs/backfill-history", "{\"limit\":\"" + LIMIT
                + "\",\"symbols\":\"WARM\",\"from\":\"" + LocalDate.now().minusDays(1) + "\",\"to\":\""
                + LocalDate.now().minusDays(1) + "\",\"vendorUrl\":\"" + base + "/demo-vendor\"}");
        String warmId = warm.replaceAll("(?s).*\"executionId\":(\\d+).*", "$1");
        for (int i = 0; i < 60 && demo.send("GET", base + "/gate/api/v1/jobs/" + warmId, null)
                .contains("\"running\":true"); i++) {
            Thread.sleep(500);
        }
        say("demo: a one-item backfill (warm-up) is done");
        demo.worker.round(); // its calls wait for each other's slots: the client's long-poll runs too
        say("demo: the worker's first round alone (warm-up): " + demo.worker.snapshots() + " snapshots, "
                + demo.worker.followUps() + " follow-ups");
        // a cold call reaches the vendor later after its grant than a warm one: counted in one vendor window with the
        // warm calls after it, it could make 11. The story starts once the warm-up's requests have left that window
        Thread.sleep(WARM_UP_LEAVES_MS);
        LocalDate to = LocalDate.now().minusDays(1);
        String job = demo.send("POST", base + "/gate/api/v1/jobs/backfill-history", "{\"limit\":\"" + LIMIT
                + "\",\"symbols\":\"AAPL,MSFT,IBM,SAP,ASML\",\"from\":\"" + to.minusDays(364) + "\",\"to\":\"" + to
                + "\",\"vendorUrl\":\"" + base + "/demo-vendor\",\"checkpointEvery\":20}");
        say("demo: started the backfill job (5 symbols x 365 days, BACKFILL): " + job);
        start(demo.worker, "demo-worker");
        start(demo.people, "demo-people");
        say("demo: the worker takes SCHEDULED snapshots of 3 stores every 5 s (and a FOLLOW_UP after each); people open"
                + " " + base + "/demo-web/quote/AAPL about every 1.5 s (INTERACTIVE). Watch " + base
                + "/gate/ (ops/ops) and the vendor's counters at " + base + "/demo-vendor/counters");
        demo.report.scheduleAtFixedRate(demo::reportCounters, 15, 15, TimeUnit.SECONDS);
        return demo;
    }

    private void reportCounters() {
        try {
            say("demo vendor: " + send("GET", base + "/demo-vendor/counters", null));
        } catch (Exception e) {
            say("demo vendor: counters not read: " + e.getMessage());
        }
    }

    private String send(String method, String url, String body) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("ops:ops".getBytes(
                        StandardCharsets.UTF_8)))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static void start(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() {
        report.shutdownNow();
        worker.close();
        people.close();
    }

    private static void say(String line) {
        System.out.println("[gate] " + line);
    }
}
