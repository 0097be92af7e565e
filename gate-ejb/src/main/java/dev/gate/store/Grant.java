package dev.gate.store;

import dev.gate.client.CallClass;

import java.time.Instant;

/** One committed grant: the call, who must be told (its owner instance), and the send time. */
public record Grant(long callId, String limit, CallClass callClass, String owner, Instant enqueuedAt,
                    Instant grantedAt) {
}
