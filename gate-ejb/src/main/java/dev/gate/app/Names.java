package dev.gate.app;

import dev.gate.rules.LimitName;

/** The names the gate accepts for limits, programs and accounts: 1-64 of [A-Za-z0-9._-]. */
public final class Names {

    private Names() {
    }

    public static boolean isValid(String name) {
        return LimitName.isValid(name);
    }
}
