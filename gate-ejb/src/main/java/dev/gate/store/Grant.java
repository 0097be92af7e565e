package dev.gate.store;

import dev.gate.client.CallClass;

import java.time.Instant;

/**
 * One committed grant: the call, who must be told (its owner instance), the send time, and whether the starvation
 * guard lifted it ({@code aged}: it went ahead of a higher class's calls because it had waited long enough).
 */
public record Grant(long callId, String limit, CallClass callClass, String owner, Instant enqueuedAt,
                    Instant grantedAt, boolean aged) {
}
