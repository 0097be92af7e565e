package dev.gate.headers;

import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VendorHeadersTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-04T14:00:00Z"), ZoneOffset.UTC);

    private static VendorHeaders read(String... nameValue) {
        Map<String, List<String>> h = new LinkedHashMap<>();
        for (int i = 0; i + 1 < nameValue.length; i += 2) {
            h.put(nameValue[i], List.of(nameValue[i + 1]));
        }
        return VendorHeaders.of(h, CLOCK);
    }

    @Test
    void theCommonXRateLimitHeadersInSecondsOrAsAUnixTime() {
        VendorHeaders s = read("X-RateLimit-Remaining", "3", "X-RateLimit-Reset", "25");
        assertEquals(3, s.remaining());
        assertEquals(Duration.ofSeconds(25), s.reset());
        assertNull(s.quota(), "no limit said: the gate tells the rule by the count alone");
        assertEquals(60, read("X-RateLimit-Limit", "60", "X-RateLimit-Remaining", "3", "X-RateLimit-Reset", "25")
                .quota(), "the quota the count is of");
        VendorHeaders github = read("x-ratelimit-remaining", "4999", "x-ratelimit-reset",
                Long.toString(Instant.parse("2026-12-04T14:05:00Z").getEpochSecond()));
        assertEquals(4999, github.remaining());
        assertEquals(Duration.ofMinutes(5), github.reset(), "a Unix time, as GitHub sends");
        assertEquals(Duration.ofSeconds(2), read("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1.2").reset(),
                "fractions round up: never reset early");
    }

    @Test
    void theIetfRateLimitFieldsOfEachDraft() {
        VendorHeaders draft7 = read("RateLimit", "limit=100, remaining=50, reset=30", "RateLimit-Policy", "100;w=60");
        assertEquals(50, draft7.remaining());
        assertEquals(Duration.ofSeconds(30), draft7.reset());
        assertEquals(100, draft7.quota());
        VendorHeaders structured = read("RateLimit", "\"default\";r=7;t=12", "RateLimit-Policy", "\"default\";q=10;w=60");
        assertEquals(7, structured.remaining());
        assertEquals(Duration.ofSeconds(12), structured.reset());
        assertEquals(10, structured.quota(), "the policy's q");
        VendorHeaders separate = read("RateLimit-Limit", "10", "RateLimit-Remaining", "2", "RateLimit-Reset", "4");
        assertEquals(2, separate.remaining());
        assertEquals(Duration.ofSeconds(4), separate.reset());
        assertEquals(10, separate.quota());
    }

    @Test
    void retryAfterInSecondsOrAsAnHttpDate() {
        assertEquals(Duration.ofSeconds(12), read("Retry-After", "12").retryAfter());
        assertEquals(Duration.ofSeconds(90), read("Retry-After", "Fri, 04 Dec 2026 14:01:30 GMT").retryAfter());
        assertEquals(Duration.ZERO, read("Retry-After", "Fri, 04 Dec 2026 13:00:00 GMT").retryAfter(), "past: now");
    }

    @Test
    void aMalformedOrLyingHeaderIsIgnoredNeverTrusted() {
        assertFalse(read("X-RateLimit-Remaining", "lots", "X-RateLimit-Reset", "10").hasCount());
        assertFalse(read("X-RateLimit-Remaining", "-1", "X-RateLimit-Reset", "10").hasCount());
        assertFalse(read("X-RateLimit-Remaining", "3", "X-RateLimit-Reset", "soon").hasCount());
        assertFalse(read("X-RateLimit-Remaining", "3").hasCount(), "a count without its reset holds nothing");
        assertFalse(read("RateLimit", "remaining=500, reset=10", "RateLimit-Policy", "100;w=60").hasCount(),
                "more left than the policy's quota is not believed");
        assertFalse(read("X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "11", "X-RateLimit-Reset", "5")
                .hasCount(), "more left than its own limit is not believed");
        VendorHeaders noLimit = read("X-RateLimit-Limit", "0", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "5");
        assertTrue(noLimit.hasCount(), "the count stands");
        assertNull(noLimit.quota(), "a limit of 0 is no quota: ignored, not passed on for the gate to refuse");
        assertFalse(read("X-RateLimit-Remaining", "1", "X-RateLimit-Reset", "99999999999999999999999").hasCount(),
                "seconds beyond any time are ignored, never thrown at the caller");
        assertEquals(VendorHeaders.LONGEST_RETRY_AFTER, read("Retry-After", "999999999").retryAfter(),
                "held to what the gate takes");
        assertEquals(VendorHeaders.LONGEST_RESET, read("RateLimit", "remaining=1, reset=999999999").reset());
        assertNull(read("Retry-After", "tomorrow").retryAfter());
        assertEquals(VendorHeaders.NONE, read());
    }
}
