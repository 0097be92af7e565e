package dev.gate.domain;

import java.time.Instant;

/** Where a waiting call stands: how many live waiting calls are ahead of it, and when it may expect its grant. */
public record Estimate(long position, Instant grantAt, Instant now) {
}
