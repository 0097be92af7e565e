package dev.gate.domain;

import dev.gate.api.CallClass;
import dev.gate.api.CallState;

import java.time.Instant;

/** A call as stored in the line. */
public record CallRow(long id, String limit, CallClass callClass, String program, String owner, CallState state,
                      Instant enqueuedAt, Instant leaseExpiresAt, Instant grantedAt, Integer outcomeStatus,
                      Integer outcomeRetryAfterSeconds, int joiners) {

    /** The grant this row records; only for a call that was granted. */
    public Grant grant() {
        if (grantedAt == null) {
            throw new IllegalStateException("call " + id + " was not granted (" + state + ")");
        }
        return new Grant(id, limit, callClass, owner, enqueuedAt, grantedAt, false); // counted when granted, not here
    }
}
