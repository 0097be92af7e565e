package dev.gate.rules;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What the vendor last said of its own count (X-RateLimit-Remaining / -Reset, RateLimit): {@code remaining} units
 * left until {@code resetAt}, as of the reporting call's send ({@code afterUnit}: the number of its last unit in the
 * limit's send log). When the vendor counts more than the gate (another client of the same account, a quota shared
 * with a partner), the vendor is right: until its reset, the gate sends at most {@code remaining} units after that
 * send, whatever its own windows would allow. Units granted after the reporting call but before its report count
 * against it too (the vendor may not have seen them yet): the gate errs on the side of fewer sends.
 *
 * <p>Never trusted beyond the declared rule: a report can only hold sends back, a remaining count above the rule's
 * calls is not a count of this rule ({@link #accepted}), and a hold lasts at most the rule's longest window
 * ({@link #resetCap}).
 */
public record VendorCount(long afterUnit, int remaining, Instant resetAt) {

    public VendorCount {
        Objects.requireNonNull(resetAt, "resetAt");
        if (remaining < 0) {
            throw new IllegalArgumentException("remaining must not be negative: " + remaining);
        }
    }

    /**
     * Until when a call of {@code cost} waits at {@code now} with {@code sent} units logged: the reset, when the units
     * sent since the report and this call's would pass what the vendor said was left; empty otherwise (or once reset).
     */
    public Optional<Instant> holdsUntil(long sent, Cost cost, Instant now) {
        if (!now.isBefore(resetAt)) {
            return Optional.empty();
        }
        long after = Math.max(0, sent - afterUnit);
        return after + cost.units() > remaining ? Optional.of(resetAt) : Optional.empty();
    }

    /** What is left by the vendor's word at {@code sent} units logged (never below 0). */
    public long left(long sent) {
        return Math.max(0, remaining - Math.max(0, sent - afterUnit));
    }

    /** Whether a reported remaining count can be this limit's: from 0 to the calls of its largest rule. */
    public static boolean accepted(int remaining, LimitRules rules) {
        return remaining >= 0 && remaining <= rules.rules().stream().mapToInt(Pace::calls).max().orElse(0);
    }

    /** The longest a report may hold sends back: the limit's longest window (a day for a daily quota). */
    public static Duration resetCap(LimitRules rules) {
        return rules.rules().stream().map(Pace::window).max(Duration::compareTo).orElseThrow();
    }
}
