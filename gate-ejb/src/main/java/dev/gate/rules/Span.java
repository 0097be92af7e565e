package dev.gate.rules;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A length of time as operators write it in configuration: {@code 500ms}, {@code 30s}, {@code 10m}, {@code 12h}, {@code 7d}, or ISO-8601 ({@code P7D}). */
public final class Span {

    private static final Pattern SHORT = Pattern.compile("(\\d{1,9})\\s*(ms|s|m|h|d)");

    private Span() {
    }

    public static Duration parse(String text) {
        String t = text == null ? "" : text.trim();
        Matcher m = SHORT.matcher(t);
        if (m.matches()) {
            return of(Long.parseLong(m.group(1)), m.group(2));
        }
        try {
            return Duration.parse(t);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' is not a length of time such as 7d, 12h, 30m, 10s, "
                    + "500ms or P7D");
        }
    }

    static Duration of(long amount, String unit) {
        return switch (unit) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            case "d" -> Duration.ofDays(amount);
            default -> throw new IllegalArgumentException("unknown unit of time " + unit);
        };
    }
}
