package dev.gate.headers;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.http.HttpHeaders;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a vendor's answer says of its rate limit, read from its headers: {@code Retry-After} (seconds or an HTTP date),
 * and its own count of the quota, units left and the time to its reset, from the IETF {@code RateLimit} field (draft
 * 7's {@code limit=10, remaining=5, reset=30} or the later {@code "default";r=5;t=30}), the drafts' separate
 * {@code RateLimit-Remaining} / {@code RateLimit-Reset}, or the common {@code X-RateLimit-Remaining} /
 * {@code X-RateLimit-Reset} (seconds, or a Unix time as GitHub sends). {@code RateLimit-Policy} ({@code 10;w=1},
 * {@code "default";q=10;w=1}) bounds the count: a remaining above its quota is not believed. The quota the count is
 * of comes from that policy, else from the count's own limit ({@code limit=} of draft 7, {@code RateLimit-Limit},
 * {@code X-RateLimit-Limit}); null where the vendor does not say: the gate then tells which of its rules the count
 * is of by the count alone.
 *
 * <p>Held to what the gate takes: a Retry-After of at most {@link #LONGEST_RETRY_AFTER}, a reset of at most
 * {@link #LONGEST_RESET}, a count and a quota of at most 999,999,999. A header that cannot be read (a word where a
 * number goes, a negative count, a limit of 0, seconds beyond any time) is ignored with a WARNING and never trusted: the gate then counts by its own rules alone, and it never takes a vendor's count beyond them anyway.
 */
public record VendorHeaders(Duration retryAfter, Integer remaining, Duration reset, Integer quota) {

    private static final Logger LOG = Logger.getLogger(VendorHeaders.class.getName());

    /** A Unix time rather than seconds from now (GitHub's X-RateLimit-Reset): anything past 2001. */
    private static final long EPOCH_SECONDS_FROM = 1_000_000_000L;

    private static final Pattern PARAMETER = Pattern.compile("(?:^|[;,])\\s*([a-zA-Z-]+)\\s*=\\s*(\"[^\"]*\"|[^;,\\s]+)");

    public static final VendorHeaders NONE = new VendorHeaders(null, null, null, null);

    /** The longest Retry-After the gate takes (a day): a longer one is read as this. */
    public static final Duration LONGEST_RETRY_AFTER = Duration.ofDays(1);
    /** The longest reset the gate takes (366 days, a yearly quota's): a later one is read as this. */
    public static final Duration LONGEST_RESET = Duration.ofDays(366);

    /** Beyond this, a number of seconds is no time a vendor means (nor a Unix time): ignored. */
    private static final BigDecimal MOST_SECONDS = BigDecimal.valueOf(1_000_000_000_000L);

    /** The headers of a {@code java.net.http} answer. */
    public static VendorHeaders of(HttpHeaders headers) {
        return of(headers.map(), Clock.systemUTC());
    }

    /** Headers by name (any case), each with its values; {@code clock} reads HTTP dates and Unix times. */
    public static VendorHeaders of(Map<String, List<String>> headers, Clock clock) {
        Map<String, String> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.forEach((name, values) -> {
            if (name != null && values != null && !values.isEmpty()) {
                h.put(name, String.join(", ", values));
            }
        });
        Duration retryAfter = atMost(retryAfter(h.get("Retry-After"), clock), LONGEST_RETRY_AFTER);
        Integer remaining = null;
        Duration reset = null;
        Integer limit = null;
        String field = h.get("RateLimit");
        if (field != null) {
            Map<String, String> p = parameters(field);
            remaining = count("RateLimit", p.getOrDefault("remaining", p.get("r")));
            reset = seconds("RateLimit", p.getOrDefault("reset", p.get("t")), clock);
            limit = p.containsKey("limit") ? count("RateLimit", p.get("limit")) : null;
        }
        if (remaining == null && h.containsKey("RateLimit-Remaining")) {
            remaining = count("RateLimit-Remaining", h.get("RateLimit-Remaining"));
            reset = seconds("RateLimit-Reset", h.get("RateLimit-Reset"), clock);
            limit = count("RateLimit-Limit", h.get("RateLimit-Limit"));
        }
        if (remaining == null && h.containsKey("X-RateLimit-Remaining")) {
            remaining = count("X-RateLimit-Remaining", h.get("X-RateLimit-Remaining"));
            reset = seconds("X-RateLimit-Reset", h.get("X-RateLimit-Reset"), clock);
            limit = count("X-RateLimit-Limit", h.get("X-RateLimit-Limit"));
        }
        Integer quota = quota(h.get("RateLimit-Policy"));
        if (remaining != null && quota != null && remaining > quota) {
            warn("RateLimit-Policy", "a remaining count of " + remaining + " above the policy's quota of " + quota);
            remaining = null;
        }
        if (quota == null) {
            quota = limit;
        }
        if (quota != null && quota < 1) {
            warn("RateLimit", "a limit of " + quota + ": no quota a count can be of");
            quota = null;
        }
        if (remaining == null || reset == null) { // a count without its reset (or the other way) holds nothing
            return new VendorHeaders(retryAfter, null, null, null);
        }
        if (quota != null && remaining > quota) {
            warn("RateLimit", "a remaining count of " + remaining + " above the limit of " + quota);
            return new VendorHeaders(retryAfter, null, null, null);
        }
        return new VendorHeaders(retryAfter, remaining, atMost(reset, LONGEST_RESET), quota);
    }

    private static Duration atMost(Duration d, Duration most) {
        return d == null || d.compareTo(most) <= 0 ? d : most;
    }

    /** Whether the vendor gave its own count (units left and the time to its reset). */
    public boolean hasCount() {
        return remaining != null;
    }

    private static Duration retryAfter(String value, Clock clock) {
        if (value == null) {
            return null;
        }
        String v = value.trim();
        if (v.matches("\\d{1,9}")) {
            return Duration.ofSeconds(Long.parseLong(v));
        }
        try {
            Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            Duration d = Duration.between(clock.instant(), at);
            return d.isNegative() ? Duration.ZERO : d.plusSeconds(d.getNano() > 0 ? 1 : 0).withNanos(0);
        } catch (DateTimeParseException e) {
            warn("Retry-After", "'" + value + "' is neither seconds nor an HTTP date");
            return null;
        }
    }

    private static Integer count(String name, String value) {
        if (value == null) {
            return null;
        }
        String v = unquoted(value);
        if (!v.matches("\\d{1,9}")) {
            warn(name, "'" + value + "' is not a count of 0 or more");
            return null;
        }
        return Integer.parseInt(v);
    }

    /** Seconds from now (rounded up), or a Unix time; null when absent or unreadable. */
    private static Duration seconds(String name, String value, Clock clock) {
        if (value == null) {
            return null;
        }
        BigDecimal s;
        try {
            s = new BigDecimal(unquoted(value));
        } catch (NumberFormatException e) {
            warn(name, "'" + value + "' is not a number of seconds");
            return null;
        }
        if (s.signum() < 0 || s.compareTo(MOST_SECONDS) > 0) {
            warn(name, "'" + value + "' is " + (s.signum() < 0 ? "negative" : "no time a vendor means"));
            return null;
        }
        long whole = s.setScale(0, RoundingMode.CEILING).longValueExact();
        if (whole >= EPOCH_SECONDS_FROM) { // a Unix time
            long left = whole - clock.instant().getEpochSecond();
            return Duration.ofSeconds(Math.max(0, left));
        }
        return Duration.ofSeconds(whole);
    }

    private static Integer quota(String policy) {
        if (policy == null) {
            return null;
        }
        Map<String, String> p = parameters(policy);
        String q = p.get("q");
        if (q == null) { // draft 7: "10;w=1", the quota first
            Matcher m = Pattern.compile("^\\s*(\\d{1,9})").matcher(policy);
            q = m.find() ? m.group(1) : null;
        }
        return q == null ? null : count("RateLimit-Policy", q);
    }

    private static Map<String, String> parameters(String field) {
        Map<String, String> p = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        Matcher m = PARAMETER.matcher(field);
        while (m.find()) {
            p.putIfAbsent(m.group(1).toLowerCase(Locale.ROOT), m.group(2));
        }
        return p;
    }

    private static String unquoted(String v) {
        String t = v.trim();
        return t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"") ? t.substring(1, t.length() - 1) : t;
    }

    private static void warn(String header, String what) {
        LOG.warning(() -> "vendor header " + header + ": " + what + "; ignored (the gate counts by its own rules)");
    }
}
