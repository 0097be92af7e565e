package dev.gate.client;

import dev.gate.headers.VendorHeaders;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.logging.Logger;

/**
 * A vendor request sent through the gate, the five hand-written lines in one: wait in the line, send, report the
 * vendor's answer (its status, Retry-After and own count: {@link VendorHeaders}), return the answer. A gate that is
 * paused, busy or out of reach throws before the vendor is called (never a vendor call without a grant); an exception
 * from the send itself gives the grant up (the vendor may not have been called) and is thrown as it came. A 429 (or a
 * 503 with Retry-After) is returned as it is, after it paused the limit for everyone, unless retries were asked for
 * ({@link #withRetries}): each retry is a new call that waits in the line, behind that pause. Immutable: each
 * {@code with...} gives a new one.
 */
public final class GatedSend {

    private static final Logger LOG = Logger.getLogger(GatedSend.class.getName());

    /** How long a send waits for its grant unless told otherwise. */
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofMinutes(1);

    private final HttpGate gate;
    private final HttpClient vendor;
    private final int retries;
    private final Duration maxWait;
    private final CallOptions options;

    GatedSend(HttpGate gate, HttpClient vendor, int retries, Duration maxWait, CallOptions options) {
        this.gate = gate;
        this.vendor = vendor;
        this.retries = retries;
        this.maxWait = maxWait;
        this.options = options;
    }

    /** Up to {@code n} more sends after a "slow down" answer, each waiting in the line again (0: none, the default). */
    public GatedSend withRetries(int n) {
        if (n < 0 || n > 100) {
            throw new IllegalArgumentException("retries: 0 to 100, was " + n);
        }
        return new GatedSend(gate, vendor, n, maxWait, options);
    }

    /** How long each send waits for its grant (default a minute). */
    public GatedSend withMaxWait(Duration wait) {
        return new GatedSend(gate, vendor, retries, Objects.requireNonNull(wait, "wait"), options);
    }

    /**
     * The call's options (a concurrency key, a cost, a lease, a deadline) for every send.
     *
     * @throws IllegalArgumentException the options carry a dedupe key: a send that joined another program's call
     *                                  must not reach the vendor, and the answer it would return is that program's
     *                                  alone; fetch once with {@link HttpGate#acquire} and {@link HttpGate#awaitOutcome}
     */
    public GatedSend withOptions(CallOptions callOptions) {
        Objects.requireNonNull(callOptions, "callOptions");
        if (callOptions.dedupeKey() != null) {
            throw new IllegalArgumentException("a dedupe key cannot go through send: a send that joins another "
                    + "program's call must not reach the vendor; fetch once with HttpGate.acquire and awaitOutcome");
        }
        return new GatedSend(gate, vendor, retries, maxWait, callOptions);
    }

    /** The HTTP client that calls the vendor (default: one of the gate client's own, made on first use). */
    public GatedSend withClient(HttpClient client) {
        return new GatedSend(gate, Objects.requireNonNull(client, "client"), retries, maxWait, options);
    }

    /**
     * Waits in {@code limit}'s line as {@code callClass}, sends {@code request} with its grant, reports the answer
     * and returns it; see the class note for retries and failures.
     *
     * @throws GateClientException the gate said no before the vendor was called (paused, busy, out of reach, not
     *                             granted in time, an unknown limit), or the answer's report could not be made
     * @throws IOException         the vendor's send failed (its grant is given up)
     */
    public <T> HttpResponse<T> send(String limit, CallClass callClass, HttpRequest request,
                                    HttpResponse.BodyHandler<T> handler)
            throws GateClientException, IOException, InterruptedException {
        HttpClient client = vendor != null ? vendor : gate.vendorClient();
        int attempt = 0;
        while (true) {
            HttpResponse<T> response;
            try (Permit permit = gate.acquire(limit, callClass, maxWait, options)) {
                // close() gives the grant up unless the answer was reported: an exception of the send, an interrupt
                response = client.send(request, handler);
                permit.complete(response);
            }
            if (!isSlowDown(response) || attempt >= retries) {
                return response;
            }
            attempt++;
            int tried = attempt;
            LOG.fine(() -> "limit=" + limit + " class=" + callClass + ": the vendor said " + response.statusCode()
                    + " to " + request.uri() + "; send " + (tried + 1) + " of at most " + (retries + 1)
                    + " waits in the line");
        }
    }

    private static boolean isSlowDown(HttpResponse<?> r) {
        return r.statusCode() == 429
                || r.statusCode() == 503 && r.headers().firstValue("Retry-After").isPresent();
    }
}
