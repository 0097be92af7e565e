package dev.gate.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client's own fault paths, against an HTTP peer that answers as the gate's API would and misbehaves on cue
 * (the real gate is in GateClientIT): one call's renewal that hangs holds up no other call's renewals; a refusal
 * while a call waits (its account's rights taken away) still sends the call out of the line; a held sign-in is its
 * own refusal, and an outcome it refused is sent again when the hold ends.
 */
class HttpGateFaultsTest {

    private HttpServer server;
    private java.util.concurrent.ExecutorService handlers;
    private final AtomicInteger nextId = new AtomicInteger();
    private final Map<String, AtomicInteger> renewals = new ConcurrentHashMap<>();
    private final List<String> left = new CopyOnWriteArrayList<>();
    /** Calls whose renewal hangs, and calls whose poll is refused with 403. */
    private final Map<String, Boolean> hanging = new ConcurrentHashMap<>();
    private final Map<String, Boolean> forbidden = new ConcurrentHashMap<>();
    /** How many of the next requests are answered 429 sign-in-held, with what Retry-After; outcomes received. */
    private final AtomicInteger held = new AtomicInteger();
    private volatile int heldSeconds;
    private final List<Long> outcomeTimes = new CopyOnWriteArrayList<>();
    private final List<String> outcomeBodies = new CopyOnWriteArrayList<>();

    @BeforeEach
    void peer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        handlers = Executors.newCachedThreadPool();
        server.setExecutor(handlers);
        server.createContext("/api/v1/", this::answer);
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        handlers.shutdownNow(); // a hanging renewal's handler too
    }

    private void answer(HttpExchange x) throws IOException {
        String path = x.getRequestURI().getPath().substring("/api/v1".length());
        String method = x.getRequestMethod();
        try {
            if (path.matches("/calls/\\d+/outcome")) {
                outcomeTimes.add(System.nanoTime());
                outcomeBodies.add(new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            }
            if (held.getAndUpdate(n -> Math.max(0, n - 1)) > 0) { // as the gate's ProblemServlet writes it
                x.getResponseHeaders().add("Retry-After", String.valueOf(heldSeconds));
                reply(x, 429, "{\"type\":\"urn:gate:problem:sign-in-held\",\"title\":\"Too many failed sign-ins\","
                        + "\"status\":429,\"detail\":\"credentials: too many failed sign-ins from this address; try "
                        + "again in " + heldSeconds + " s\"}");
            } else if (method.equals("POST") && path.matches("/limits/[^/]+/calls")
                    && "mode=try".equals(x.getRequestURI().getQuery())) {
                reply(x, 201, "{\"id\":" + nextId.incrementAndGet() + ",\"state\":\"GRANTED\",\"joined\":false,"
                        + "\"grantedAt\":\"2026-01-01T00:00:00Z\"}");
            } else if (method.equals("POST") && path.matches("/calls/\\d+/outcome")) {
                reply(x, 204, null);
            } else if (method.equals("POST") && path.matches("/limits/[^/]+/calls")) {
                reply(x, 201, call(String.valueOf(nextId.incrementAndGet())));
            } else if (method.equals("POST") && path.matches("/calls/\\d+/lease")) {
                String id = path.split("/")[2];
                renewals.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                if (hanging.containsKey(id)) {
                    Thread.sleep(30_000); // a renewal that never comes back in time
                }
                reply(x, 200, call(id));
            } else if (method.equals("GET") && path.matches("/calls/\\d+")) {
                String id = path.split("/")[2];
                if (forbidden.containsKey(id)) {
                    reply(x, 403, "{\"type\":\"urn:gate:problem:forbidden\",\"title\":\"Forbidden\",\"status\":403,"
                            + "\"detail\":\"not a caller any more\"}");
                    return;
                }
                String wait = x.getRequestURI().getQuery().replaceAll(".*waitSeconds=(\\d+).*", "$1");
                Thread.sleep(Math.min(1_000, Long.parseLong(wait) * 1_000)); // still waiting when the poll ends
                reply(x, 200, call(id));
            } else if (method.equals("DELETE") && path.matches("/calls/\\d+")) {
                left.add(path.split("/")[2]);
                reply(x, 204, null);
            } else {
                reply(x, 404, null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String call(String id) {
        return "{\"id\":" + id + ",\"state\":\"WAITING\",\"joined\":false}";
    }

    private static void reply(HttpExchange x, int status, String body) throws IOException {
        byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().add("Content-Type", "application/json");
        x.sendResponseHeaders(status, status == 204 ? -1 : bytes.length);
        if (status != 204) {
            x.getResponseBody().write(bytes);
        }
        x.close();
    }

    private HttpGate gate() {
        return HttpGate.connect(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/api/v1"),
                "worker", "worker");
    }

    @Test
    void aRenewalThatHangsHoldsUpNoOtherCallsRenewals() throws Exception {
        hanging.put("1", true); // the first call's renewals hang; the second's answer at once
        var pool = Executors.newFixedThreadPool(2);
        try (HttpGate gate = gate()) {
            CallOptions shortLease = CallOptions.NONE.withLease(Duration.ofSeconds(3)); // renewed every second
            Future<?> first = pool.submit(() -> waitOut(gate, shortLease));
            Thread.sleep(300); // the first call joins first: id 1
            Future<?> second = pool.submit(() -> waitOut(gate, shortLease));
            first.get(20, TimeUnit.SECONDS);
            second.get(20, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        // 6 s of waiting, a renewal a second (five due): the second call's went out while the first's hung (a
        // renewal thread that waited on the hanging one sent none); three leave room for a busy box
        assertTrue(renewals.getOrDefault("2", new AtomicInteger()).get() >= 3,
                "the second call renewed on time: " + renewals);
        assertEquals(List.of("1", "2"), left.stream().sorted().toList(), "both left the line when their wait ended");
    }

    private static Void waitOut(HttpGate gate, CallOptions options) throws Exception {
        assertThrows(GateClientException.Timeout.class,
                () -> gate.acquire("vendor-a", CallClass.BACKFILL, Duration.ofSeconds(6), options));
        return null;
    }

    @Test
    void aRefusalWhileTheCallWaitsStillTakesTheCallOutOfTheLine() throws Exception {
        forbidden.put("1", true);
        try (HttpGate gate = gate()) {
            assertThrows(IllegalArgumentException.class,
                    () -> gate.acquire("vendor-a", CallClass.BACKFILL, Duration.ofSeconds(10)));
        }
        assertEquals(List.of("1"), left, "the waiting call was taken out of the line, not left to its lease");
    }

    @Test
    void aTryRefusedByAHeldSignInIsItsOwnRefusalWithTheHoldsRetryAfter() throws Exception {
        heldSeconds = 7;
        held.set(1);
        try (HttpGate gate = gate()) {
            assertSignInHeld(assertThrows(GateClientException.SignInHeld.class,
                    () -> gate.tryAcquire("vendor-a", CallClass.INTERACTIVE)));
        }
    }

    @Test
    void aSubmissionRefusedByAHeldSignInIsItsOwnRefusalNotAMissedDeadline() throws Exception {
        heldSeconds = 7;
        held.set(1);
        try (HttpGate gate = gate()) {
            assertSignInHeld(assertThrows(GateClientException.SignInHeld.class,
                    () -> gate.acquire("vendor-a", CallClass.BACKFILL, Duration.ofSeconds(10))));
        }
    }

    private static void assertSignInHeld(GateClientException.SignInHeld e) {
        assertEquals(Duration.ofSeconds(7), e.retryAfter(), "the hold's Retry-After");
        assertTrue(e.getMessage().contains("too many failed sign-ins"), e.getMessage());
    }

    @Test
    void anOutcomeRefusedByAHeldSignInIsKeptAndSentWhenTheHoldEnds() throws Exception {
        try (HttpGate gate = gate()) {
            Permit p = gate.tryAcquire("vendor-a", CallClass.INTERACTIVE).permit().orElseThrow();
            heldSeconds = 2;
            held.set(1);
            p.complete(429, Duration.ofSeconds(30)); // the vendor's slow-down: it must reach the gate
            assertTrue(p.completed());
        }
        assertEquals(2, outcomeTimes.size(), "sent, held, sent again: " + outcomeBodies);
        assertEquals(outcomeBodies.get(0), outcomeBodies.get(1), "the same outcome");
        assertTrue(outcomeTimes.get(1) - outcomeTimes.get(0) >= TimeUnit.SECONDS.toNanos(2),
                "not before the hold ended: " + (outcomeTimes.get(1) - outcomeTimes.get(0)) / 1_000_000 + " ms");
    }
}
