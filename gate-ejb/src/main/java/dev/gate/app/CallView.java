package dev.gate.app;

import dev.gate.api.CallClass;
import dev.gate.api.CallState;

import java.time.Instant;

/**
 * A call as its program sees it: where it is in its life, its lease, its outcome, how many submissions joined it by
 * its dedupe key, and, while it waits, its position (calls ahead of it) and estimated grant time (else null).
 */
public record CallView(long id, String limit, CallClass callClass, String program, CallState state,
                       Instant enqueuedAt, Instant grantedAt, Instant leaseExpiresAt, Integer outcomeStatus,
                       Integer outcomeRetryAfterSeconds, long joiners, Long position, Instant estimatedGrantAt) {

    public boolean waiting() {
        return state == CallState.WAITING;
    }

    /** Its outcome is reported, or it ended without one: nothing more will happen to it. */
    public boolean done() {
        return outcomeStatus != null || (state != CallState.WAITING && state != CallState.GRANTED);
    }
}
