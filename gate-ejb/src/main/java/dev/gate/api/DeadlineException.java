package dev.gate.api;

import java.time.Duration;
import java.time.Instant;

/** The call cannot be granted before its deadline: the line and the rate say so. Nothing joined the line. */
public class DeadlineException extends GateException {

    private static final long serialVersionUID = 1L;

    private final Instant estimatedGrantAt;
    private final Duration estimatedWait;

    public DeadlineException(String limit, Duration deadline, Instant estimatedGrantAt, Duration estimatedWait) {
        super("a call on limit '" + limit + "' cannot be granted within its deadline of " + deadline
                + ": the estimated wait is " + estimatedWait);
        this.estimatedGrantAt = estimatedGrantAt;
        this.estimatedWait = estimatedWait;
    }

    public Instant estimatedGrantAt() {
        return estimatedGrantAt;
    }

    public Duration estimatedWait() {
        return estimatedWait;
    }
}
