package dev.gate.client;

import dev.gate.headers.VendorHeaders;

import java.time.Duration;
import java.time.Instant;

/**
 * A granted call: make the vendor call, then report its answer with {@link #complete}. A 429 (or a 503 with
 * Retry-After) reported here pauses the whole limit for every program. {@link #close()} without {@code complete}
 * gives the grant up: the gate ends it as ABANDONED at once and its keys are free (if the gate cannot be reached
 * then, it ends it so when the call's lease runs out). {@code complete} sends the answer again while it is lost or the
 * gate is paused (up to a minute); a report that failed even so is not turned into "given up" by {@code close()}.
 */
public final class Permit implements AutoCloseable {

    private final HttpGate gate;
    private final long callId;
    private final String limit;
    private final Instant grantedAt;
    private final boolean joined;
    private boolean completed;
    private boolean vendorCalled;

    Permit(HttpGate gate, long callId, String limit, Instant grantedAt, boolean joined) {
        this.gate = gate;
        this.callId = callId;
        this.limit = limit;
        this.grantedAt = grantedAt;
        this.joined = joined;
    }

    /**
     * The submission joined another program's live call of the same dedupe key: that program calls the vendor;
     * this one waits for its answer with {@link HttpGate#awaitOutcome} and neither completes nor gives it up.
     */
    public boolean joined() {
        return joined;
    }

    public long callId() {
        return callId;
    }

    public String limit() {
        return limit;
    }

    /** When the gate granted it, on the gate's clock. */
    public Instant grantedAt() {
        return grantedAt;
    }

    /** The vendor's answer: the call is done. */
    public void complete(int vendorStatus) throws GateClientException, InterruptedException {
        complete(vendorStatus, (Duration) null);
    }

    /** The vendor's answer with its Retry-After (a 429 or 503 with it pauses the limit that long). */
    public void complete(int vendorStatus, Duration retryAfter) throws GateClientException, InterruptedException {
        vendorCalled = true; // whatever becomes of the report, close() must not say the vendor was never called
        gate.complete(callId, vendorStatus, retryAfter);
        completed = true;
    }

    /**
     * The vendor's answer as it came: its status, and what its headers say of its rate limit ({@link VendorHeaders}:
     * Retry-After, and its own count of units left until its reset, which holds the limit to it until then). The
     * usual way: {@code permit.complete(vendor.send(request, handler))}.
     */
    public void complete(java.net.http.HttpResponse<?> response) throws GateClientException, InterruptedException {
        complete(response.statusCode(), VendorHeaders.of(response.headers()));
    }

    /** The vendor's status with what its headers said ({@link VendorHeaders#of}). */
    public void complete(int vendorStatus, VendorHeaders said) throws GateClientException, InterruptedException {
        vendorCalled = true;
        gate.complete(callId, vendorStatus, said);
        completed = true;
    }

    public boolean completed() {
        return completed;
    }

    @Override
    public void close() {
        if (!completed && !joined && !vendorCalled) {
            completed = gate.abandon(callId);
        }
    }
}
