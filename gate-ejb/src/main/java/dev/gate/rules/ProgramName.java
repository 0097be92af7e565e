package dev.gate.rules;

/**
 * The rule for a program's name (the account's over HTTP, the caller's own in Java): 1-64 characters, as the line
 * stores it. A longer one could never have a call, so it is refused before it reaches the database.
 */
public final class ProgramName {

    public static final int MAX = 64;

    private ProgramName() {
    }

    public static boolean isValid(String name) {
        return name != null && !name.isEmpty() && name.length() <= MAX;
    }

    public static String require(String name) {
        if (!isValid(name)) {
            throw new IllegalArgumentException("program: must be 1-" + MAX + " characters, was "
                    + (name == null ? "none" : name.length() + " characters"));
        }
        return name;
    }
}
