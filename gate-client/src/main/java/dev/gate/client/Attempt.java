package dev.gate.client;

import java.time.Duration;
import java.util.Optional;

/**
 * A try-now's answer ({@link HttpGate#tryAcquire}): a permit when a slot was free at that moment, else how long until
 * one may be. A refused try left nothing in the line.
 */
public record Attempt(Optional<Permit> permit, Duration retryAfter) {

    public boolean granted() {
        return permit.isPresent();
    }
}
