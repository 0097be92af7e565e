package dev.gate.api;

import dev.gate.headers.VendorHeaders;

import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * A vendor's HTTP answer as an {@link Outcome}: its status and what its headers say of its rate limit (Retry-After,
 * its own count and quota: {@link VendorHeaders}, which holds them to what the gate takes).
 */
final class VendorAnswers {

    private VendorAnswers() {
    }

    static Outcome of(int status, Map<String, List<String>> headers) {
        VendorHeaders said = VendorHeaders.of(headers, Clock.systemUTC());
        return new Outcome(status, said.retryAfter(), said.remaining(), said.reset(), said.quota());
    }
}
