package dev.gate.api;

import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.client.ClientRequestContext;
import jakarta.ws.rs.client.ClientRequestFilter;
import jakarta.ws.rs.client.ClientResponseContext;
import jakarta.ws.rs.client.ClientResponseFilter;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import java.time.Duration;
import java.util.Objects;

/**
 * A JAX-RS client filter for code on the server: each request to the vendor waits in a limit's line before it is
 * sent, and its response (status, Retry-After, the vendor's own count: {@link VendorAnswers}) is reported when it
 * comes. A retry by the client is a new request, so a new call in the line. Register it on a plain client
 * ({@code client.register(new GatedClientFilter("vendor-a", CallClass.SCHEDULED))}), on a MicroProfile Rest Client
 * built by hand ({@code RestClientBuilder...register(filter)}), or, for {@code @RegisterProvider}, as a subclass with
 * a constructor of no arguments ({@code public VendorA() { super("vendor-a", CallClass.SCHEDULED); }}).
 *
 * <p>A request may say its own class ({@link #CALL_CLASS}, e.g. {@code .property(GatedClientFilter.CALL_CLASS,
 * CallClass.MANUAL)}) and options ({@link #OPTIONS}: a concurrency key, a cost, a lease); a request that marks a
 * person waiting ({@link PersonWaiting}) is INTERACTIVE. A gate that says no (paused, busy, not granted in time, an
 * unknown limit) stops the request before the vendor is called: the caller gets a {@link ProcessingException} whose
 * cause is the {@link GateException}. A request that fails in transport (no response) leaves its grant to end at its
 * lease, as ABANDONED: JAX-RS tells a filter nothing of it. A dedupe key is refused: a joiner would need the first
 * caller's answer, which only {@link Gate#awaitOutcome} gives.
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
    /** How long a request waits for its grant unless told otherwise. */
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofMinutes(1);

    private static final String PERMIT = "dev.gate.permit";

    private final String limit;
    private final CallClass callClass;
    private final Duration maxWait;
    private volatile Gate gate;

    /** Requests wait in {@code limit}'s line as {@code callClass}, up to a minute; the gate is looked up by name. */
    public GatedClientFilter(String limit, CallClass callClass) {
        this(null, limit, callClass, DEFAULT_MAX_WAIT);
    }

    /** @param gate the gate (null: looked up at {@link Gate#JNDI_NAME} on first use) */
    public GatedClientFilter(Gate gate, String limit, CallClass callClass, Duration maxWait) {
        this.gate = gate;
        this.limit = Objects.requireNonNull(limit, "limit");
        this.callClass = Objects.requireNonNull(callClass, "callClass");
        this.maxWait = Objects.requireNonNull(maxWait, "maxWait");
    }

    @Override
    public void filter(ClientRequestContext request) {
        CallClass declared = request.getProperty(CALL_CLASS) instanceof CallClass c ? c : callClass;
        CallOptions options = request.getProperty(OPTIONS) instanceof CallOptions o ? o : CallOptions.NONE;
        if (options.dedupeKey() != null) {
            throw new IllegalArgumentException("a dedupe key cannot go through a client filter: a joiner waits for "
                    + "the first caller's answer with Gate.awaitOutcome");
        }
        Permit permit;
        long asked = System.nanoTime();
        try {
            permit = gate().acquire(limit, GatedCalls.classFor(declared, GatedCalls::personWaitsHere), maxWait,
                    options);
        } catch (GateException e) {
            throw new ProcessingException("limit " + limit + ": " + e.getMessage(), e);
        }
        request.setProperty(PERMIT, new Granted(permit, System.nanoTime() - asked));
    }

    @Override
    public void filter(ClientRequestContext request, ClientResponseContext response) {
        if (!(request.getProperty(PERMIT) instanceof Granted granted)) {
            return; // not granted here (another filter aborted the request before this one)
        }
        request.removeProperty(PERMIT);
        GatedCalls.report(gate(), granted.permit(), VendorAnswers.of(response.getStatus(), response.getHeaders()));
        response.getHeaders().putSingle(CALL_ID_HEADER, Long.toString(granted.permit().callId()));
        response.getHeaders().putSingle(WAITED_HEADER, Long.toString(granted.waitedNanos() / 1_000_000));
    }

    /** A request's grant, and how long it waited for it. */
    private record Granted(Permit permit, long waitedNanos) {
    }

    private Gate gate() {
        Gate g = gate;
        if (g == null) {
            try {
                g = InitialContext.doLookup(Gate.JNDI_NAME);
            } catch (NamingException e) {
                throw new ProcessingException("the gate is not deployed on this server (" + Gate.JNDI_NAME + ")", e);
            }
            gate = g;
        }
        return g;
    }
}
