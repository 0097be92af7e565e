package dev.gate.domain;

import dev.gate.api.CallClass;

import java.time.Instant;
import java.util.Optional;

/**
 * One committed grant: the call, who must be told (its owner instance), the send time, and whether the starvation
 * guard lifted it ({@code aged}: it went ahead of a higher class's calls because it had waited long enough); and
 * {@code call}, the granted call as its program reads it, when the grant's statement returned it whole (null
 * otherwise: a call that dedupe joiners may share has a count the statement does not read).
 */
public record Grant(long callId, String limit, CallClass callClass, String owner, Instant enqueuedAt,
                    Instant grantedAt, boolean aged, CallRow call) {

    public Grant(long callId, String limit, CallClass callClass, String owner, Instant enqueuedAt, Instant grantedAt,
                 boolean aged) {
        this(callId, limit, callClass, owner, enqueuedAt, grantedAt, aged, null);
    }

    /** The granted call as a read of it would give it, when the grant brought it whole. */
    public Optional<CallRow> whole() {
        return Optional.ofNullable(call);
    }
}
