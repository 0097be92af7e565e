package dev.gate.client;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonReader;

import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The gate for a plain Java program, over its HTTP API (java.net.http, no server jars). {@code acquire} joins the
 * line and waits for the grant with long-polls (no busy polling), renewing the call's lease in the background while
 * it waits; a "busy" answer (503 with Retry-After) is waited out and tried again; any other refusal is a typed
 * {@link GateClientException}. A call that is not granted within the wait leaves the line before the caller hears so.
 * A submission with a dedupe key may join another program's live call ({@link Permit#joined()}): it then waits for
 * that call's answer with {@link #awaitOutcome} instead of calling the vendor.
 *
 * <pre>{@code
 * try (HttpGate gate = HttpGate.connect(URI.create("http://gate:8080/gate/api/v1"), "worker", secret);
 *      Permit p = gate.acquire("vendor-a", CallClass.SCHEDULED, Duration.ofSeconds(30))) {
 *     int status = callTheVendor();
 *     p.complete(status);
 * }
 * }</pre>
 */
public final class HttpGate implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(HttpGate.class.getName());

    /** The longest single long-poll (the server allows 60 s). */
    static final int POLL_SECONDS = 20;

    private static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

    /** How long a request whose answer was lost (connection cut, timed out) is tried again before "paused". */
    static final Duration LOST_ANSWER_RETRIES = Duration.ofSeconds(10);

    /** How long an outcome is sent again while it is lost or the gate is paused: a 429 must reach the gate. */
    static final Duration OUTCOME_RETRIES = Duration.ofSeconds(60);

    private final URI base;
    private final String authorization;
    private final HttpClient http;
    private final ScheduledExecutorService renewals;

    private HttpGate(URI base, String authorization) {
        this.base = base;
        this.authorization = authorization;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        this.renewals = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "gate-lease-renewal");
            t.setDaemon(true);
            return t;
        });
    }

    /** @param base the API's base, e.g. {@code http://gate:8080/gate/api/v1}; the account is a caller's */
    public static HttpGate connect(URI base, String account, String password) {
        String pair = account + ":" + password;
        return new HttpGate(URI.create(base.toString().replaceAll("/+$", "")),
                "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
    }

    /** Joins the line of {@code limit} and waits up to {@code maxWait} for the grant. */
    public Permit acquire(String limit, CallClass callClass, Duration maxWait)
            throws GateClientException, InterruptedException {
        return acquire(limit, callClass, maxWait, CallOptions.NONE);
    }

    /** As {@link #acquire(String, CallClass, Duration)}, with a lease, deadline, concurrency or dedupe key. */
    public Permit acquire(String limit, CallClass callClass, Duration maxWait, CallOptions options)
            throws GateClientException, InterruptedException {
        long until = System.nanoTime() + maxWait.toNanos();
        Duration lease = options.lease() == null ? DEFAULT_LEASE : options.lease();
        JsonObjectBuilder body = Json.createObjectBuilder().add("class", callClass.name())
                .add("leaseSeconds", lease.toSeconds());
        if (options.deadline() != null) {
            body.add("deadlineSeconds", Math.max(1, options.deadline().toSeconds()));
        }
        if (options.concurrencyKey() != null) {
            body.add("concurrencyKey", options.concurrencyKey());
        }
        if (options.dedupeKey() != null) {
            body.add("dedupeKey", options.dedupeKey());
        }
        if (options.limitKey() != null) {
            body.add("key", options.limitKey());
        }
        // the server holds a submission at most half the call's lease, so the id comes back in time to renew it
        String path = "/limits/" + URLEncoder.encode(limit, StandardCharsets.UTF_8) + "/calls?waitSeconds="
                + pollSeconds(until);
        // the submission's own key: if its answer is lost after the gate took it, the retry finds the same call
        String submissionKey = UUID.randomUUID().toString();
        JsonObject call = answer(sendAgainIfLost("POST", path, body.build().toString(), submissionKey, until),
                200, 201);
        long id = call.getJsonNumber("id").longValue();
        boolean joined = call.getBoolean("joined", false);
        if (!"WAITING".equals(call.getString("state"))) {
            return granted(call, limit, joined);
        }
        if (joined) { // another program's call: its lease is that program's to renew
            while ("WAITING".equals(call.getString("state"))) {
                if (System.nanoTime() >= until) {
                    throw new GateClientException.Timeout("call " + id + " on limit '" + limit + "' (joined by its "
                            + "dedupe key) was not granted within " + maxWait);
                }
                call = answer(sendAgainIfLost("GET", "/calls/" + id + "?waitSeconds=" + pollSeconds(until), null,
                        null, until), 200);
            }
            return granted(call, limit, true);
        }
        long every = Math.max(1_000, lease.toMillis() / 3);
        Duration renewalWait = Duration.ofMillis(every);
        ScheduledFuture<?> renewal = renewals.scheduleAtFixedRate(() -> renew(id, renewalWait), every, every,
                TimeUnit.MILLISECONDS);
        boolean leaving = false;
        try {
            while ("WAITING".equals(call.getString("state"))) {
                if (System.nanoTime() >= until) {
                    leaving = true;
                    return leave(id, limit, maxWait);
                }
                call = answer(sendAgainIfLost("GET", "/calls/" + id + "?waitSeconds=" + pollSeconds(until), null,
                        null, until), 200);
            }
            return granted(call, limit, false);
        } catch (InterruptedException | GateClientException | RuntimeException e) {
            if (!leaving) {
                leaveQuietly(id); // the caller hears "no" (or a refusal): its call must not wait on for nobody
            }
            throw e;
        } finally {
            renewal.cancel(false);
        }
    }

    /**
     * Try now: a permit at once if a slot of {@code limit} is free this moment and no call of this class or a higher
     * one waits, else when to try again; a refused try leaves nothing in the line (one request, one round trip to the
     * gate's database). It carries its own Idempotency-Key: when its answer is lost it is sent again for up to 10 s
     * and gets the grant the first one made, never a second slot. A "busy" answer is not waited out.
     */
    public Attempt tryAcquire(String limit, CallClass callClass) throws GateClientException, InterruptedException {
        return tryAcquire(limit, callClass, null);
    }

    /** As above, on a keyed limit: the try takes a slot of {@code key}'s own line (null: a limit without keys). */
    public Attempt tryAcquire(String limit, CallClass callClass, String key)
            throws GateClientException, InterruptedException {
        JsonObjectBuilder fields = Json.createObjectBuilder().add("class", callClass.name())
                .add("leaseSeconds", DEFAULT_LEASE.toSeconds());
        if (key != null) {
            fields.add("key", key);
        }
        String body = fields.build().toString();
        // no time to wait out a "busy" answer: a try answers now (a busy 503 comes back as Busy)
        HttpResponse<String> r = sendAgainIfLost("POST", "/limits/" + URLEncoder.encode(limit, StandardCharsets.UTF_8)
                + "/calls?mode=try", body, UUID.randomUUID().toString(), System.nanoTime());
        if (r.statusCode() == 429) {
            JsonObject problem = answer(r, 429);
            return new Attempt(Optional.empty(), Duration.ofMillis(problem.getJsonNumber("retryAfterMs").longValue()));
        }
        return new Attempt(Optional.of(granted(answer(r, 200, 201), limit, false)), Duration.ZERO);
    }

    /**
     * Reports the vendor's answer. Sent again, a little later each time, for up to {@link #OUTCOME_RETRIES} while its
     * answer is lost or the gate is paused or busy: a 429 that never reaches the gate would leave every other program
     * calling into the vendor's pause. The gate answers 204 to the same outcome sent again.
     */
    void complete(long callId, int status, Duration retryAfter) throws GateClientException, InterruptedException {
        JsonObjectBuilder body = Json.createObjectBuilder().add("status", status);
        if (retryAfter != null) {
            body.add("retryAfterSeconds", retryAfter.toSeconds());
        }
        String json = body.build().toString();
        long giveUp = System.nanoTime() + OUTCOME_RETRIES.toNanos();
        long pauseMs = 100;
        while (true) {
            GateClientException failed;
            try {
                HttpResponse<String> r = send("POST", "/calls/" + callId + "/outcome", json, giveUp);
                if (r.statusCode() == 204) {
                    return; // recorded now, or recorded by a request whose answer was lost (the gate says so)
                }
                failed = refusal(r);
            } catch (GateClientException.Unreachable lost) {
                failed = lost;
            }
            if (!(failed instanceof GateClientException.Paused)
                    || System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pauseMs) >= giveUp) {
                throw failed;
            }
            GateClientException cause = failed;
            LOG.fine(() -> "outcome of call " + callId + " sent again: " + cause.getMessage());
            TimeUnit.MILLISECONDS.sleep(pauseMs);
            pauseMs = Math.min(2_000, pauseMs * 2);
        }
    }

    /** Gives a grant up (no vendor call); false when the gate could not be told (the lease then ends it). */
    boolean abandon(long callId) {
        try {
            HttpResponse<String> r = send("POST", "/calls/" + callId + "/abandon", null,
                    System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
            if (r.statusCode() == 204 || r.statusCode() == 409) {
                return true; // given up now, or already ended
            }
            LOG.warning(() -> "call " + callId + " not given up (" + r.statusCode() + "); its lease will end it");
        } catch (GateClientException e) {
            LOG.warning(() -> "call " + callId + " not given up: " + e.getMessage() + "; its lease will end it");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    private Permit granted(JsonObject call, String limit, boolean joined) throws GateClientException {
        String state = call.getString("state");
        if (!"GRANTED".equals(state) && !(joined && "DONE".equals(state))) {
            throw new GateClientException.Ended("call " + call.getJsonNumber("id") + " on limit '" + limit
                    + "' ended " + state + " without a grant");
        }
        return new Permit(this, call.getJsonNumber("id").longValue(), limit,
                Instant.parse(call.getString("grantedAt")), joined);
    }

    /**
     * A dedupe joiner's wait for the vendor's answer to the call it joined ({@link Permit#joined()}): long-polls
     * until the first program reports it. Throws {@code Ended} when the call ended without one, {@code Timeout}
     * when {@code maxWait} passes first.
     */
    public Outcome awaitOutcome(Permit permit, Duration maxWait) throws GateClientException, InterruptedException {
        long until = System.nanoTime() + maxWait.toNanos();
        while (true) {
            JsonObject call = answer(sendAgainIfLost("GET", "/calls/" + permit.callId() + "?until=done&waitSeconds="
                    + pollSeconds(until), null, null, until), 200);
            if (!call.isNull("outcome")) {
                JsonObject o = call.getJsonObject("outcome");
                return new Outcome(o.getInt("status"), o.isNull("retryAfterSeconds") ? null
                        : Duration.ofSeconds(o.getInt("retryAfterSeconds")));
            }
            String state = call.getString("state");
            if (!"WAITING".equals(state) && !"GRANTED".equals(state)) {
                throw new GateClientException.Ended("call " + permit.callId() + " ended " + state
                        + " without an outcome");
            }
            if (System.nanoTime() >= until) {
                throw new GateClientException.Timeout("no outcome for call " + permit.callId() + " within " + maxWait);
            }
        }
    }

    /** The wait is over: the call leaves the line, unless it was granted in the meantime (then it is the caller's). */
    private Permit leave(long id, String limit, Duration maxWait) throws GateClientException, InterruptedException {
        HttpResponse<String> r = send("DELETE", "/calls/" + id, null, System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
        if (r.statusCode() == 409) {
            return granted(answer(send("GET", "/calls/" + id, null, System.nanoTime()
                    + TimeUnit.SECONDS.toNanos(30)), 200), limit, false);
        }
        if (r.statusCode() != 204) {
            throw refusal(r);
        }
        throw new GateClientException.Timeout("call " + id + " on limit '" + limit + "' was not granted within "
                + maxWait + "; it has left the line");
    }

    private void leaveQuietly(long id) {
        try {
            send("DELETE", "/calls/" + id, null, System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
        } catch (Exception e) {
            LOG.log(Level.FINE, "call " + id + " could not leave the line; its lease will end it", e);
        }
    }

    /**
     * Sends one renewal and returns at once: the one renewal thread only starts requests, so a renewal that hangs
     * (a slow network, a stalled server) never holds up the others; it times out before the next one is due.
     */
    private void renew(long id, Duration every) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + "/calls/" + id + "/lease"))
                .timeout(every).header("Authorization", authorization)
                .POST(HttpRequest.BodyPublishers.noBody()).build();
        http.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((r, e) -> {
            if (e != null || r.statusCode() != 200) {
                LOG.log(Level.FINE, "lease of call " + id + " not renewed this time"
                        + (r == null ? "" : " (" + r.statusCode() + ")"), e);
            }
        });
    }

    /** Seconds for the next long-poll: what is left of the wait, at most {@link #POLL_SECONDS}. */
    private static long pollSeconds(long until) {
        long left = TimeUnit.NANOSECONDS.toSeconds(until - System.nanoTime());
        return Math.max(0, Math.min(POLL_SECONDS, left));
    }

    /**
     * A request that may be sent twice (a read, or a submission with its key): when its answer is lost it is sent
     * again, a little later each time, for up to {@link #LOST_ANSWER_RETRIES}; then the gate is "paused".
     */
    private HttpResponse<String> sendAgainIfLost(String method, String path, String body, String submissionKey,
                                                 long until) throws GateClientException, InterruptedException {
        long giveUp = System.nanoTime() + LOST_ANSWER_RETRIES.toNanos();
        long pauseMs = 100;
        while (true) {
            try {
                return send(method, path, body, submissionKey, until);
            } catch (GateClientException.Unreachable lost) {
                if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pauseMs) >= giveUp) {
                    throw lost;
                }
                LOG.fine(() -> method + " " + path + " sent again: " + lost.getMessage());
                TimeUnit.MILLISECONDS.sleep(pauseMs);
                pauseMs = Math.min(2_000, pauseMs * 2);
            }
        }
    }

    private HttpResponse<String> send(String method, String path, String body, long until)
            throws GateClientException, InterruptedException {
        return send(method, path, body, null, until);
    }

    /**
     * One request. A "busy" answer (503 with Retry-After, not "paused") is waited out and sent again while the wait
     * lasts; a gate that cannot be reached is "paused" (no grant; try later).
     */
    private HttpResponse<String> send(String method, String path, String body, String submissionKey, long until)
            throws GateClientException, InterruptedException {
        while (true) {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                    .timeout(Duration.ofSeconds(POLL_SECONDS + 15)).header("Authorization", authorization)
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
            if (body != null) {
                b.header("Content-Type", "application/json");
            }
            if (submissionKey != null) {
                b.header("Idempotency-Key", submissionKey);
            }
            HttpResponse<String> r;
            try {
                r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) {
                throw new GateClientException.Unreachable("the gate cannot be reached at " + base + ": " + e);
            }
            if (r.statusCode() == 503 && !isPaused(r)) {
                long retry = r.headers().firstValue("Retry-After").map(Long::parseLong).orElse(1L);
                if (System.nanoTime() + TimeUnit.SECONDS.toNanos(retry) < until) {
                    TimeUnit.SECONDS.sleep(retry);
                    continue;
                }
            }
            return r;
        }
    }

    private static boolean isLineFull(HttpResponse<String> r) {
        return r.body() != null && r.body().contains("\"urn:gate:problem:line-full\"");
    }

    private static Duration retryAfterMs(HttpResponse<String> r) {
        try (JsonReader reader = Json.createReader(new StringReader(r.body()))) {
            return Duration.ofMillis(reader.readObject().getJsonNumber("retryAfterMs").longValue());
        } catch (RuntimeException notThere) {
            return Duration.ofSeconds(1);
        }
    }

    private static boolean isPaused(HttpResponse<String> r) {
        return r.body() != null && r.body().contains("\"Calls are paused\"");
    }

    private static JsonObject answer(HttpResponse<String> r, int... ok) throws GateClientException {
        for (int status : ok) {
            if (r.statusCode() == status) {
                try (JsonReader reader = Json.createReader(new StringReader(r.body()))) {
                    return reader.readObject();
                }
            }
        }
        throw refusal(r);
    }

    private static GateClientException refusal(HttpResponse<String> r) {
        String detail = detail(r);
        return switch (r.statusCode()) {
            case 503 -> isPaused(r) ? new GateClientException.Paused(detail) : new GateClientException.Busy(detail);
            case 429 -> isLineFull(r) ? new GateClientException.LineFull(detail, retryAfterMs(r))
                    : new GateClientException.DeadlineMissed(detail);
            case 404 -> new GateClientException.UnknownLimit(detail);
            case 400, 401, 403, 413 -> throw new IllegalArgumentException("the gate refused the request ("
                    + r.statusCode() + "): " + detail);
            default -> new GateClientException("the gate answered " + r.statusCode() + ": " + detail);
        };
    }

    private static String detail(HttpResponse<String> r) {
        try (JsonReader reader = Json.createReader(new StringReader(r.body()))) {
            JsonObject problem = reader.readObject();
            return problem.getString("detail", problem.getString("title", r.body()));
        } catch (RuntimeException notJson) {
            return r.body() == null || r.body().isBlank() ? "HTTP " + r.statusCode() : r.body();
        }
    }

    /** Stops the lease renewals (calls still waiting then end at their leases). */
    @Override
    public void close() {
        renewals.shutdownNow();
    }
}
