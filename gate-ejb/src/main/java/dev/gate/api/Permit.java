package dev.gate.api;

import java.io.Serializable;
import java.time.Instant;
import java.util.Objects;

/**
 * The right to make one vendor call now. Make the call, then report how it went with {@link Gate#complete}.
 * A plain serializable value: it crosses deployments by value.
 */
public final class Permit implements Serializable {

    private static final long serialVersionUID = 1L;

    private final long callId;
    private final String limit;
    private final CallClass callClass;
    private final Instant enqueuedAt;
    private final Instant grantedAt;
    private final boolean joined;

    public Permit(long callId, String limit, CallClass callClass, Instant enqueuedAt, Instant grantedAt) {
        this(callId, limit, callClass, enqueuedAt, grantedAt, false);
    }

    /** @param joined the caller joined another caller's call by its dedupe key: it must not call the vendor */
    public Permit(long callId, String limit, CallClass callClass, Instant enqueuedAt, Instant grantedAt,
                  boolean joined) {
        this.callId = callId;
        this.limit = Objects.requireNonNull(limit);
        this.callClass = Objects.requireNonNull(callClass);
        this.enqueuedAt = Objects.requireNonNull(enqueuedAt);
        this.grantedAt = Objects.requireNonNull(grantedAt);
        this.joined = joined;
    }

    /**
     * True when this caller joined a call another submitted with the same dedupe key: that caller makes the vendor
     * call; this one waits for its outcome with {@link Gate#awaitOutcome}.
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

    public CallClass callClass() {
        return callClass;
    }

    /** When the call joined the line (database clock). */
    public Instant enqueuedAt() {
        return enqueuedAt;
    }

    /** When the slot was granted; this is the send time recorded in the send log (database clock). */
    public Instant grantedAt() {
        return grantedAt;
    }

    @Override
    public String toString() {
        return "Permit[call " + callId + ", " + limit + ", " + callClass + ", granted " + grantedAt
                + (joined ? ", joined" : "") + "]";
    }
}
