package dev.gate.client;

import java.time.Duration;

/** How the vendor answered a call: its status and Retry-After (null when none); a dedupe joiner's shared answer. */
public record Outcome(int status, Duration retryAfter) {
}
