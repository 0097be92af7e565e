package dev.gate.api;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/** A vendor's HTTP answer as an {@link Outcome}: its status and its Retry-After (seconds or an HTTP date). */
final class VendorAnswers {

    private static final Logger LOG = Logger.getLogger(VendorAnswers.class.getName());

    private VendorAnswers() {
    }

    static Outcome of(int status, Map<String, List<String>> headers) {
        String value = null;
        for (Map.Entry<String, List<String>> h : headers.entrySet()) {
            if ("Retry-After".equalsIgnoreCase(h.getKey()) && h.getValue() != null && !h.getValue().isEmpty()) {
                value = h.getValue().get(0);
            }
        }
        return new Outcome(status, retryAfter(value, Instant.now()));
    }

    static Duration retryAfter(String value, Instant now) {
        if (value == null) {
            return null;
        }
        String v = value.trim();
        if (v.matches("\\d{1,9}")) {
            return Duration.ofSeconds(Long.parseLong(v));
        }
        try {
            Duration d = Duration.between(now, ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME)
                    .toInstant());
            return d.isNegative() ? Duration.ZERO : Duration.ofSeconds(d.getSeconds() + (d.getNano() > 0 ? 1 : 0));
        } catch (DateTimeParseException e) {
            LOG.warning(() -> "vendor header Retry-After: '" + value + "' is neither seconds nor an HTTP date; "
                    + "ignored");
            return null;
        }
    }
}
