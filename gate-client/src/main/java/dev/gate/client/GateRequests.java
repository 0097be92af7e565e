package dev.gate.client;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@link HttpGate}'s requests to the gate's API, as one account: one request (a "busy" answer waited out), one sent
 * again while its answer is lost, a lease renewal that never holds up the next. A gate that cannot be reached is
 * "paused" to the caller.
 */
final class GateRequests {

    private static final Logger LOG = Logger.getLogger(GateRequests.class.getName());

    /** The longest single long-poll (the server allows 60 s). */
    static final int POLL_SECONDS = 20;

    /** How long a request whose answer was lost (connection cut, timed out) is tried again before "paused". */
    static final Duration LOST_ANSWER_RETRIES = Duration.ofSeconds(10);

    /** How long an outcome is sent again while it is lost or the gate is paused: a 429 must reach the gate. */
    static final Duration OUTCOME_RETRIES = Duration.ofSeconds(60);

    private final URI base;
    private final String authorization;
    private final HttpClient http;

    GateRequests(URI base, String authorization) {
        this.base = base;
        this.authorization = authorization;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    /** Seconds for the next long-poll: what is left of the wait, at most {@link #POLL_SECONDS}. */
    static long pollSeconds(long until) {
        long left = TimeUnit.NANOSECONDS.toSeconds(until - System.nanoTime());
        return Math.max(0, Math.min(POLL_SECONDS, left));
    }

    /**
     * Sends one renewal and returns at once: the one renewal thread only starts requests, so a renewal that hangs
     * (a slow network, a stalled server) never holds up the others; it times out before the next one is due.
     */
    void renew(long id, Duration every) {
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

    /**
     * A request that may be sent twice (a read, or a submission with its key): when its answer is lost it is sent
     * again, a little later each time, for up to {@link #LOST_ANSWER_RETRIES}; then the gate is "paused".
     */
    HttpResponse<String> sendAgainIfLost(String method, String path, String body, String submissionKey, long until)
            throws GateClientException, InterruptedException {
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

    /**
     * Sends a call's outcome ({@code json}) until the gate has it: again, a little later each time, for up to
     * {@link #OUTCOME_RETRIES} while its answer is lost or the gate is paused or busy; when a held sign-in refuses it,
     * kept and sent again when the hold ends, however long (the gate bounds a hold, and still takes an outcome after
     * the call's lease); any other refusal at once.
     */
    void sendOutcome(long callId, String json) throws GateClientException, InterruptedException {
        long giveUp = System.nanoTime() + OUTCOME_RETRIES.toNanos();
        long pauseMs = 100;
        while (true) {
            GateClientException failed;
            try {
                HttpResponse<String> r = send("POST", "/calls/" + callId + "/outcome", json, giveUp);
                if (r.statusCode() == 204) {
                    return; // recorded now, or recorded by a request whose answer was lost (the gate says so)
                }
                failed = ApiJson.refusal(r);
            } catch (GateClientException.Unreachable lost) {
                failed = lost;
            }
            if (failed instanceof GateClientException.SignInHeld held) {
                LOG.warning(() -> "outcome of call " + callId + " kept: this account's sign-ins are held ("
                        + held.getMessage() + "); sent again in " + held.retryAfter().toSeconds() + " s");
                TimeUnit.MILLISECONDS.sleep(held.retryAfter().toMillis());
                giveUp = Math.max(giveUp, System.nanoTime() + OUTCOME_RETRIES.toNanos());
                continue;
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

    HttpResponse<String> send(String method, String path, String body, long until)
            throws GateClientException, InterruptedException {
        return send(method, path, body, null, until);
    }

    /**
     * One request. A "busy" answer (503 with Retry-After, not "paused") is waited out and sent again while the wait
     * lasts; a gate that cannot be reached is "paused" (no grant; try later).
     */
    HttpResponse<String> send(String method, String path, String body, String submissionKey, long until)
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
            if (r.statusCode() == 503 && !ApiJson.isPaused(r)) {
                long retry = r.headers().firstValue("Retry-After").map(Long::parseLong).orElse(1L);
                if (System.nanoTime() + TimeUnit.SECONDS.toNanos(retry) < until) {
                    TimeUnit.SECONDS.sleep(retry);
                    continue;
                }
            }
            return r;
        }
    }
}
