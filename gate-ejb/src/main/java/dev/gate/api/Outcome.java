package dev.gate.api;

import java.io.Serializable;
import java.time.Duration;

/**
 * How the vendor answered a call: its HTTP status, the Retry-After it gave, if any, and its own count if it sent one
 * (X-RateLimit-Remaining / -Reset, RateLimit): the units left and the time until its count resets. With a count, the
 * limit sends no more than the vendor said was left until then (the vendor is right when another client of the same
 * account used some); never more than the limit's rules allow.
 */
public final class Outcome implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final Duration retryAfter;
    private final Integer remaining;
    private final Duration reset;
    private final Integer quota;

    public Outcome(int status, Duration retryAfter) {
        this(status, retryAfter, null, null);
    }

    /**
     * With the vendor's own count: {@code remaining} units left (0 or more) until {@code reset} from now; both or
     * neither.
     */
    public Outcome(int status, Duration retryAfter, Integer remaining, Duration reset) {
        this(status, retryAfter, remaining, reset, null);
    }

    /**
     * With the vendor's own count and the quota it is of ({@code X-RateLimit-Limit}, the RateLimit policy's; null:
     * not said): the quota tells the gate which of the limit's rules the count is of.
     */
    public Outcome(int status, Duration retryAfter, Integer remaining, Duration reset, Integer quota) {
        if ((remaining == null) != (reset == null)) {
            throw new IllegalArgumentException("the vendor's count is its remaining units and the time to its reset, "
                    + "both or neither");
        }
        if (remaining != null && (remaining < 0 || reset.isNegative())) {
            throw new IllegalArgumentException("remaining and reset must not be negative: " + remaining + ", " + reset);
        }
        this.status = status;
        this.retryAfter = retryAfter;
        this.remaining = remaining;
        if (quota != null && (remaining == null || quota < 1 || quota < remaining)) {
            throw new IllegalArgumentException("a quota goes with a count, from 1 and not below the remaining: " + quota);
        }
        this.reset = reset;
        this.quota = quota;
    }

    /** The quota the vendor's count is of, as it said; null when it said none. */
    public Integer quota() {
        return quota;
    }

    /** The vendor's units left, as it said; null when it said nothing. */
    public Integer remaining() {
        return remaining;
    }

    /** The time from the answer to the vendor's reset of its count; null when it said nothing. */
    public Duration reset() {
        return reset;
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
        return "Outcome[" + status + (retryAfter == null ? "" : ", retry after " + retryAfter)
                + (remaining == null ? "" : ", " + remaining + (quota == null ? "" : " of " + quota) + " left for "
                + reset) + "]";
    }
}
