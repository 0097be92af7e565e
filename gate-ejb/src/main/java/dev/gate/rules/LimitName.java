package dev.gate.rules;

import java.util.regex.Pattern;

/** The rule for limit names: 1-64 of {@code [A-Za-z0-9._-]}. */
public final class LimitName {

    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private LimitName() {
    }

    public static boolean isValid(String name) {
        return name != null && VALID.matcher(name).matches();
    }

    public static String require(String name) {
        if (!isValid(name)) {
            throw new IllegalArgumentException("limit name must be 1-64 of [A-Za-z0-9._-]: '" + name + "'");
        }
        return name;
    }
}
