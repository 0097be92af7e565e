package dev.gate.rules;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Limits declared at deployment, e.g. {@code gate.limits=vendor-a=600/60s, vendor-b=10/1s, nightly=50000/1d}.
 * Each entry is {@code name=calls/window}; the window takes a unit: ms, s, m, h or d.
 */
public final class LimitDeclarations {

    private static final Pattern ENTRY = Pattern.compile("([^=\\s]+)\\s*=\\s*(\\d{1,9})\\s*/\\s*(\\d{1,9})\\s*(ms|s|m|h|d)");

    private LimitDeclarations() {
    }

    public static Map<String, Pace> parse(String text) {
        Map<String, Pace> limits = new LinkedHashMap<>();
        if (text == null || text.isBlank()) {
            return limits;
        }
        for (String raw : text.split(",")) {
            String entry = raw.trim();
            if (entry.isEmpty()) {
                continue;
            }
            Matcher m = ENTRY.matcher(entry);
            if (!m.matches()) {
                throw new IllegalArgumentException("limit declaration '" + entry
                        + "' is not name=calls/window with a window unit of ms, s, m, h or d (e.g. vendor-a=600/60s)");
            }
            String name = LimitName.require(m.group(1));
            if (limits.containsKey(name)) {
                throw new IllegalArgumentException("limit '" + name + "' is declared twice");
            }
            limits.put(name, new Pace(Integer.parseInt(m.group(2)), Span.of(Long.parseLong(m.group(3)), m.group(4))));
        }
        return limits;
    }
}
