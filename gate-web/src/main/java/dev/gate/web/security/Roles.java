package dev.gate.web.security;

import java.util.Set;

/** The gate's roles. */
public final class Roles {

    public static final String CALLER = "caller";
    public static final String OPERATOR = "operator";
    public static final String VIEWER = "viewer";
    public static final Set<String> ALL = Set.of(CALLER, OPERATOR, VIEWER);

    private Roles() {
    }
}
