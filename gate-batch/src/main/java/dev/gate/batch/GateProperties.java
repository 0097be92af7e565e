package dev.gate.batch;

import dev.gate.api.CallClass;
import dev.gate.api.CallOptions;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Locale;

/**
 * A gated step's settings, from its properties: the limit, the call's class (default BACKFILL), how long one wait
 * for a grant may last before it is asked again (default 10 min), how many "slow down" answers one item may get
 * before the step fails (default 20), the {@code @Named} {@link GatedCall} that calls the vendor, key templates in
 * which {@code {item}} stands for the item's text (e.g. {@code history:{item}}), and what each item's call costs in
 * units of the quota (default 1; at most the limit's smallest rule, which the gate checks).
 */
public record GateProperties(String limit, CallClass callClass, Duration maxWait, int retries, String call,
                             String dedupeKey, String concurrencyKey, int cost) {

    public static final CallClass DEFAULT_CLASS = CallClass.BACKFILL;
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofMinutes(10);
    public static final int DEFAULT_RETRIES = 20;

    /** Reads the properties as a step gives them (null or blank when not set); a bad one names itself. */
    public static GateProperties parse(String limit, String callClass, String maxWait, String retries, String call,
                                       String dedupeKey, String concurrencyKey) {
        return parse(limit, callClass, maxWait, retries, call, dedupeKey, concurrencyKey, null);
    }

    /** As above, with {@code gate.cost}. */
    public static GateProperties parse(String limit, String callClass, String maxWait, String retries, String call,
                                       String dedupeKey, String concurrencyKey, String cost) {
        return new GateProperties(required("gate.limit", limit), callClass(callClass), maxWait(maxWait),
                retries(retries), required("gate.call", call), template("gate.dedupeKey", dedupeKey),
                template("gate.concurrencyKey", concurrencyKey), cost(cost));
    }

    /** The call's options for one item: its keys filled in. */
    public CallOptions options(Object item) {
        CallOptions options = CallOptions.NONE.withCost(cost);
        if (dedupeKey != null) {
            options = options.withDedupeKey(fill(dedupeKey, item));
        }
        if (concurrencyKey != null) {
            options = options.withConcurrencyKey(fill(concurrencyKey, item));
        }
        return options;
    }

    static String fill(String template, Object item) {
        String key = template.replace("{item}", String.valueOf(item));
        return key.length() <= 200 ? key : key.substring(0, 200);
    }

    private static String required(String name, String value) {
        if (blank(value)) {
            throw new IllegalArgumentException(name + " is required");
        }
        return value.trim();
    }

    private static CallClass callClass(String value) {
        if (blank(value)) {
            return DEFAULT_CLASS;
        }
        try {
            return CallClass.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("gate.class must be one of " + Arrays.toString(CallClass.values())
                    + ", was '" + value + "'");
        }
    }

    /** ISO-8601 ({@code PT30S}) or whole seconds. */
    private static Duration maxWait(String value) {
        if (blank(value)) {
            return DEFAULT_MAX_WAIT;
        }
        Duration d;
        try {
            d = value.trim().matches("\\d{1,7}") ? Duration.ofSeconds(Long.parseLong(value.trim()))
                    : Duration.parse(value.trim());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("gate.maxWait must be seconds or ISO-8601 (PT30S), was '" + value + "'");
        }
        if (d.compareTo(Duration.ofSeconds(1)) < 0 || d.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("gate.maxWait must be 1 s to 1 day, was " + d);
        }
        return d;
    }

    private static int retries(String value) {
        if (blank(value)) {
            return DEFAULT_RETRIES;
        }
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 0 && n <= 1000) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new IllegalArgumentException("gate.retries must be 0..1000, was '" + value + "'");
    }

    private static int cost(String value) {
        if (blank(value)) {
            return 1;
        }
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new IllegalArgumentException("gate.cost must be a whole number of units, 1 or more, was '" + value + "'");
    }

    private static String template(String name, String value) {
        if (blank(value)) {
            return null;
        }
        if (value.length() > 200) {
            throw new IllegalArgumentException(name + " must be at most 200 characters");
        }
        return value;
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }
}
