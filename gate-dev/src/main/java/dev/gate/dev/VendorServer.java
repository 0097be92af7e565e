package dev.gate.dev;

import com.sun.net.httpserver.HttpExchange;
import dev.gate.demo.vendor.VendorCounters;
import dev.gate.demo.vendor.VendorWindow;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;

/**
 * A rate-limited vendor for tests, on a real port: {@code GET /history/<symbol>/<day>} answers a day of history, or
 * 429 with Retry-After beyond its {@link VendorWindow}. It counts requests, 429s and successful fetches per path, so
 * a test can say "every item fetched exactly once, no window over the limit".
 */
public final class VendorServer implements AutoCloseable {

    private final HttpServer server;
    private final VendorCounters counters;
    private final Set<String> breakOnce = ConcurrentHashMap.newKeySet();

    public VendorServer(int calls, Duration window) throws IOException {
        this.counters = new VendorCounters(calls, window);
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.createContext("/history/", this::history);
        server.setExecutor(Executors.newFixedThreadPool(8, r -> {
            Thread t = new Thread(r, "vendor");
            t.setDaemon(true);
            return t;
        }));
        server.start();
    }

    /** The base URL a job's {@code vendorUrl} names. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void history(HttpExchange x) throws IOException {
        try (x) {
            String path = x.getRequestURI().getPath().substring("/history/".length());
            if (breakOnce.remove(path)) {
                counters.received(System.nanoTime());
                // the answer breaks off mid-body (a client does not retry an answer that had begun)
                x.sendResponseHeaders(200, 1_000);
                x.getResponseBody().write("{\"item\":".getBytes(StandardCharsets.UTF_8));
                x.getResponseBody().flush();
                return;
            }
            VendorWindow.Verdict v = counters.admit(path, System.nanoTime());
            v.headers().forEach((name, value) -> x.getResponseHeaders().set(name, value)); // its own count
            if (!v.accepted()) {
                x.getResponseHeaders().set("Retry-After", Long.toString(v.retryAfterSeconds()));
                send(x, 429, "{\"error\":\"rate limit\"}");
                return;
            }
            send(x, 200, "{\"item\":\"" + path + "\",\"close\":" + (100 + Math.abs(path.hashCode() % 900)) + "}");
        }
    }

    private static void send(HttpExchange x, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().set("Content-Type", "application/json");
        x.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** A request of another client of the same vendor account, not through any gate: counted, answered nothing. */
    public boolean callBehindTheGatesBack() {
        return counters.admit("other-client", System.nanoTime()).accepted();
    }

    /** The first answer for {@code path} ({@code SYMBOL/DAY}) breaks off mid-body: the caller sees a broken connection. */
    public void breakOnce(String path) {
        breakOnce.add(path);
    }

    public int requests() {
        return counters.requests();
    }

    public int refused() {
        return counters.refused();
    }

    /** Answers per path ({@code SYMBOL/DAY}); a broken-off answer does not count. */
    public Map<String, Integer> fetched() {
        return counters.answeredByPath();
    }

    public int worstWindow() {
        return counters.worstWindow();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
