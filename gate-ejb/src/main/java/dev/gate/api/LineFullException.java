package dev.gate.api;

import java.time.Duration;

/**
 * The limit's line is full (its {@code maxWaiting}, the program's {@code maxWaitingPerProgram}, or a keyed limit's
 * {@code maxKeys}): the call was not joined, nothing waits. Try again after {@link #retryAfter()}, the line's own
 * estimate of when a place may free (its next slot, or the end of its cool-down).
 */
public class LineFullException extends GateException {

    private static final long serialVersionUID = 1L;

    private final Duration retryAfter;

    public LineFullException(String limit, String why, Duration retryAfter) {
        super("limit '" + limit + "' is full: " + why + "; a place may free in " + retryAfter.toMillis() + " ms");
        this.retryAfter = retryAfter;
    }

    public Duration retryAfter() {
        return retryAfter;
    }
}
