package dev.gate.client;

import dev.gate.headers.VendorHeaders;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientRequestFilter;
import jakarta.ws.rs.client.ClientResponseContext;
import jakarta.ws.rs.client.ClientResponseFilter;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.logging.Logger;

/**
 * A JAX-RS client filter for a program outside the server: each request to the vendor waits in a limit's line (over
 * the gate's HTTP API, as {@link HttpGate#acquire}) before it is sent, and its response (status, Retry-After, the
 * vendor's own count: {@link VendorHeaders}) is reported when it comes. A retry by the client is a new request, so a
 * new call in the line. Register it on a JAX-RS client ({@code client.register(new GatedClientFilter(gate,
 * "vendor-a", CallClass.SCHEDULED))}) or a MicroProfile Rest Client ({@code RestClientBuilder...register(filter)}; for
 * {@code @RegisterProvider}, a subclass with a constructor of no arguments that passes the program's gate).
 *
 * <p>A request may say its own class ({@link #CALL_CLASS}) and options ({@link #OPTIONS}). A gate that says no
 * (paused, busy, out of reach, not granted in time, an unknown limit) stops the request before the vendor is called:
 * the caller gets a {@link ProcessingException} whose cause is the {@link GateClientException}. The report is sent
 * again while the gate cannot be reached (up to a minute); if it still fails, the caller gets the vendor's response
 * all the same and the failure is a WARNING (the grant ends at its lease). A request that fails in transport (no
 * response) leaves its grant to end at its lease, as ABANDONED: JAX-RS tells a filter nothing of it. A dedupe key is
 * refused: a joiner would need the first caller's answer ({@link HttpGate#awaitOutcome}).
 */
public class GatedClientFilter implements ClientRequestFilter, ClientResponseFilter {

    /** A request property: the {@link CallClass} this request waits in, instead of the filter's. */
    public static final String CALL_CLASS = "dev.gate.callClass";
    /** A request property: the {@link CallOptions} of this request's call. */
    public static final String OPTIONS = "dev.gate.callOptions";

    /** A header the filter adds to the vendor's response: the gate's id of the request's call. */
    public static final String CALL_ID_HEADER = "Gate-Call-Id";
    /** A header the filter adds to the vendor's response: how long the request waited for its grant, ms. */
    public static final String WAITED_HEADER = "Gate-Waited-Ms";

    private static final Logger LOG = Logger.getLogger(GatedClientFilter.class.getName());
    private static final String PERMIT = "dev.gate.permit";

    private final HttpGate gate;
    private final String limit;
    private final CallClass callClass;
    private final Duration maxWait;

    /** Requests wait in {@code limit}'s line as {@code callClass}, up to {@link GatedSend#DEFAULT_MAX_WAIT}. */
    public GatedClientFilter(HttpGate gate, String limit, CallClass callClass) {
        this(gate, limit, callClass, GatedSend.DEFAULT_MAX_WAIT);
    }

    public GatedClientFilter(HttpGate gate, String limit, CallClass callClass, Duration maxWait) {
        this.gate = Objects.requireNonNull(gate, "gate");
        this.limit = Objects.requireNonNull(limit, "limit");
        this.callClass = Objects.requireNonNull(callClass, "callClass");
        this.maxWait = Objects.requireNonNull(maxWait, "maxWait");
    }

    @Override
    public void filter(ClientRequestContext request) {
        CallClass c = request.getProperty(CALL_CLASS) instanceof CallClass given ? given : callClass;
        CallOptions options = request.getProperty(OPTIONS) instanceof CallOptions o ? o : CallOptions.NONE;
        if (options.dedupeKey() != null) {
            throw new IllegalArgumentException("a dedupe key cannot go through a client filter: a joiner waits for "
                    + "the first caller's answer with HttpGate.awaitOutcome");
        }
        long asked = System.nanoTime();
        try {
            Permit permit = gate.acquire(limit, c, maxWait, options);
            request.setProperty(PERMIT, new Granted(permit, System.nanoTime() - asked));
        } catch (GateClientException e) {
            throw new ProcessingException("limit " + limit + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProcessingException("limit " + limit + ": interrupted while waiting for the grant", e);
        }
    }

    @Override
    public void filter(ClientRequestContext request, ClientResponseContext response) {
        if (!(request.getProperty(PERMIT) instanceof Granted granted)) {
            return; // not granted here (another filter aborted the request before this one)
        }
        request.removeProperty(PERMIT);
        Permit permit = granted.permit();
        response.getHeaders().putSingle(CALL_ID_HEADER, Long.toString(permit.callId()));
        response.getHeaders().putSingle(WAITED_HEADER, Long.toString(granted.waitedNanos() / 1_000_000));
        try {
            permit.complete(response.getStatus(), VendorHeaders.of(response.getHeaders(), Clock.systemUTC()));
        } catch (GateClientException e) {
            LOG.warning(() -> "call " + permit.callId() + " limit=" + limit + ": the vendor answered "
                    + response.getStatus() + ", but the outcome was not recorded (" + e.getMessage()
                    + "); the grant ends at its lease");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warning(() -> "call " + permit.callId() + " limit=" + limit + ": interrupted while reporting the "
                    + "vendor's " + response.getStatus() + "; the grant ends at its lease");
        }
    }

    /** A request's grant, and how long it waited for it. */
    private record Granted(Permit permit, long waitedNanos) {
    }
}
