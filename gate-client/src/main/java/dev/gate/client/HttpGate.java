package dev.gate.client;

import dev.gate.headers.VendorHeaders;

import jakarta.json.JsonObject;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

import static dev.gate.client.ApiJson.answer;
import static dev.gate.client.ApiJson.refusal;
import static dev.gate.client.GateRequests.pollSeconds;

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

    private static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

    private final GateRequests requests;
    private final LeaseRenewals renewals;
    private java.net.http.HttpClient vendorClient;

    private HttpGate(URI base, String authorization) {
        this.requests = new GateRequests(base, authorization);
        this.renewals = new LeaseRenewals(requests);
    }

    /** @param base the API's base, e.g. {@code http://gate:8080/gate/api/v1}; the account is a caller's */
    public static HttpGate connect(URI base, String account, String password) {
        String pair = account + ":" + password;
        return new HttpGate(URI.create(base.toString().replaceAll("/+$", "")),
                "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Waits in {@code limit}'s line, sends {@code request} to the vendor with its grant, reports the answer (status,
     * Retry-After, the vendor's own count) and returns it: {@link GatedSend}. A 429 is returned, not retried; for
     * retries, each waiting in the line again: {@code gate.sending().withRetries(2).send(...)}.
     */
    public <T> HttpResponse<T> send(String limit, CallClass callClass, HttpRequest request,
                                    HttpResponse.BodyHandler<T> handler)
            throws GateClientException, java.io.IOException, InterruptedException {
        return sending().send(limit, callClass, request, handler);
    }

    /** A vendor send through this gate, to set up ({@code withRetries}, {@code withMaxWait}, ...) and reuse. */
    public GatedSend sending() {
        return new GatedSend(this, null, 0, GatedSend.DEFAULT_MAX_WAIT, CallOptions.NONE);
    }

    /** The HTTP client this gate client calls vendors with (made on first use). */
    synchronized java.net.http.HttpClient vendorClient() {
        if (vendorClient == null) {
            vendorClient = java.net.http.HttpClient.newHttpClient();
        }
        return vendorClient;
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
        String body = ApiJson.submission(callClass, lease, options);
        // the server holds a submission at most half the call's lease, so the id comes back in time to renew it
        String path = "/limits/" + URLEncoder.encode(limit, StandardCharsets.UTF_8) + "/calls?waitSeconds="
                + pollSeconds(until);
        // the submission's own key: if its answer is lost after the gate took it, the retry finds the same call
        String submissionKey = UUID.randomUUID().toString();
        JsonObject call = answer(requests.sendAgainIfLost("POST", path, body, submissionKey, until),
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
                call = answer(requests.sendAgainIfLost("GET", "/calls/" + id + "?waitSeconds=" + pollSeconds(until),
                        null, null, until), 200);
            }
            return granted(call, limit, true);
        }
        ScheduledFuture<?> renewal = renewals.start(id, lease);
        boolean leaving = false;
        try {
            while ("WAITING".equals(call.getString("state"))) {
                if (System.nanoTime() >= until) {
                    leaving = true;
                    return leave(id, limit, maxWait);
                }
                call = answer(requests.sendAgainIfLost("GET", "/calls/" + id + "?waitSeconds=" + pollSeconds(until),
                        null, null, until), 200);
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
        return tryAcquire(limit, callClass, CallOptions.NONE);
    }

    /** As above, on a keyed limit: the try takes a slot of {@code key}'s own line (null: a limit without keys). */
    public Attempt tryAcquire(String limit, CallClass callClass, String key)
            throws GateClientException, InterruptedException {
        return tryAcquire(limit, callClass, CallOptions.NONE.withLimitKey(key));
    }

    /**
     * As above, with options: a keyed limit's key and the call's cost are taken (a try has no deadline, concurrency
     * or dedupe key: it is granted now or not at all; its lease is the default).
     */
    public Attempt tryAcquire(String limit, CallClass callClass, CallOptions options)
            throws GateClientException, InterruptedException {
        return attempt(limit, callClass, options, false);
    }

    /**
     * Try now and consume, for an inbound limit (each user of a service allowed N requests a minute), where the call
     * is the request itself: granted and ended by the gate in the same statement, by the same rules and into the same
     * send log as {@link #tryAcquire}, but DONE at once: no lease to renew, no outcome to report (the permit only
     * names the consumed call). Not granted: when to try again, nothing left in the line. Sent again with its own
     * Idempotency-Key after a lost answer, it gets the first one's consumption, never a second.
     */
    public Attempt tryConsume(String limit, CallClass callClass) throws GateClientException, InterruptedException {
        return tryConsume(limit, callClass, CallOptions.NONE);
    }

    /** As above, with options: a keyed limit's key (each user's own line) and the call's cost. */
    public Attempt tryConsume(String limit, CallClass callClass, CallOptions options)
            throws GateClientException, InterruptedException {
        return attempt(limit, callClass, options, true);
    }

    private Attempt attempt(String limit, CallClass callClass, CallOptions options, boolean consume)
            throws GateClientException, InterruptedException {
        String body = ApiJson.attempt(callClass, consume ? null : DEFAULT_LEASE, options.limitKey(), options.cost());
        // no time to wait out a "busy" answer: a try answers now (a busy 503 comes back as Busy)
        HttpResponse<String> r = requests.sendAgainIfLost("POST", "/limits/"
                + URLEncoder.encode(limit, StandardCharsets.UTF_8) + "/calls?mode=" + (consume ? "consume" : "try"),
                body, UUID.randomUUID().toString(), System.nanoTime());
        if (r.statusCode() == 429 && ApiJson.isNoFreeSlot(r)) { // any other 429 (a held sign-in) is a refusal
            JsonObject problem = answer(r, 429);
            return new Attempt(Optional.empty(), Duration.ofMillis(problem.getJsonNumber("retryAfterMs").longValue()));
        }
        JsonObject call = answer(r, 200, 201);
        return new Attempt(Optional.of(consume ? consumed(call, limit) : granted(call, limit, false)), Duration.ZERO);
    }

    /** A consuming try's call: DONE at once (granted and ended by the gate in one statement). */
    private Permit consumed(JsonObject call, String limit) throws GateClientException {
        if (!"DONE".equals(call.getString("state")) || call.isNull("grantedAt")) {
            throw new GateClientException.Ended("call " + call.getJsonNumber("id") + " on limit '" + limit
                    + "' is " + call.getString("state") + ", not consumed");
        }
        return new Permit(this, call.getJsonNumber("id").longValue(), limit,
                Instant.parse(call.getString("grantedAt")), false);
    }

    /**
     * Reports the vendor's answer. Sent again, a little later each time, for up to
     * {@link GateRequests#OUTCOME_RETRIES} while its answer is lost or the gate is paused or busy, and when a held
     * sign-in refused it, kept and sent again when the hold ends: a 429 that never reaches the gate would leave every
     * other program calling into the vendor's pause. The gate answers 204 to the same outcome sent again.
     */
    void complete(long callId, int status, Duration retryAfter) throws GateClientException, InterruptedException {
        requests.sendOutcome(callId, ApiJson.outcome(status, retryAfter));
    }

    /** As above, with what the vendor's headers said (its Retry-After and its own count). */
    void complete(long callId, int status, VendorHeaders said) throws GateClientException, InterruptedException {
        requests.sendOutcome(callId, ApiJson.outcome(status, said));
    }

    /** Gives a grant up (no vendor call); false when the gate could not be told (the lease then ends it). */
    boolean abandon(long callId) {
        try {
            HttpResponse<String> r = requests.send("POST", "/calls/" + callId + "/abandon", null,
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
            JsonObject call = answer(requests.sendAgainIfLost("GET", "/calls/" + permit.callId()
                    + "?until=done&waitSeconds=" + pollSeconds(until), null, null, until), 200);
            if (!call.isNull("outcome")) {
                return ApiJson.outcome(call.getJsonObject("outcome"));
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
        HttpResponse<String> r = requests.send("DELETE", "/calls/" + id, null,
                System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
        if (r.statusCode() == 409) {
            return granted(answer(requests.send("GET", "/calls/" + id, null, System.nanoTime()
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
            requests.send("DELETE", "/calls/" + id, null, System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
        } catch (Exception e) {
            LOG.log(Level.FINE, "call " + id + " could not leave the line; its lease will end it", e);
        }
    }

    /** Stops the lease renewals (calls still waiting then end at their leases). */
    @Override
    public void close() {
        renewals.close();
    }
}
