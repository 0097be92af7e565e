package dev.gate.api;

import java.io.Serializable;
import java.time.Duration;

/** How the vendor answered a call: its HTTP status, and the Retry-After it gave, if any. */
public final class Outcome implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final Duration retryAfter;

    public Outcome(int status, Duration retryAfter) {
        this.status = status;
        this.retryAfter = retryAfter;
    }

    public int status() {
        return status;
    }

    /** Null when the vendor gave none. */
    public Duration retryAfter() {
        return retryAfter;
    }

    @Override
    public String toString() {
        return "Outcome[" + status + (retryAfter == null ? "" : ", retry after " + retryAfter) + "]";
    }
}
