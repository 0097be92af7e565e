package dev.gate.api;

import dev.gate.headers.VendorHeaders;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A vendor's HTTP answer as an {@link Outcome}: its status and what its headers say of its rate limit (Retry-After,
 * its own count: {@link VendorHeaders}), held to what the gate's API takes, as gate-client holds them.
 */
final class VendorAnswers {

    /** The longest Retry-After and reset the gate's HTTP API takes; the same here. */
    private static final long MAX_RETRY_AFTER_S = 86_400;
    private static final long MAX_RESET_S = 31_622_400;

    private VendorAnswers() {
    }

    static Outcome of(int status, Map<String, List<String>> headers) {
        VendorHeaders said = VendorHeaders.of(headers, Clock.systemUTC());
        Duration retryAfter = said.retryAfter() == null ? null
                : Duration.ofSeconds(Math.min(MAX_RETRY_AFTER_S, said.retryAfter().toSeconds()));
        if (!said.hasCount()) {
            return new Outcome(status, retryAfter);
        }
        return new Outcome(status, retryAfter, said.remaining(),
                Duration.ofSeconds(Math.min(MAX_RESET_S, said.reset().toSeconds())), said.quota());
    }
}
