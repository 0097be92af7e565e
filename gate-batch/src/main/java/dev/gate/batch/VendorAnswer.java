package dev.gate.batch;

import java.time.Duration;

/**
 * How the vendor answered one call: its status, its Retry-After (null when it sent none) and what the step keeps.
 * A 429, or a 503 with Retry-After, is the vendor saying "slow down": the gate pauses the whole limit, and the item
 * goes through the line again.
 */
public record VendorAnswer<O>(int status, Duration retryAfter, O result) {

    public VendorAnswer {
        if (status < 100 || status > 599) {
            throw new IllegalArgumentException("an HTTP status is 100..599: " + status);
        }
    }

    public boolean slowDown() {
        return status == 429 || (status == 503 && retryAfter != null);
    }
}
