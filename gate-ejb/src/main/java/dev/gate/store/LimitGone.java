package dev.gate.store;

import org.postgresql.util.PSQLException;

/**
 * A join whose limit went under it: an operator's removal committed while the join's insert waited for the limit's
 * row (its foreign key's check), so the insert found no limit. To that call the limit is unknown, as it would have
 * been a moment later; never a failure of the gate's.
 */
final class LimitGone {

    private static final String CONSTRAINT = "gate_call_limit_name_fkey";

    private LimitGone() {
    }

    /** Whether a statement's failure is that: the call's limit row gone by the time its insert was checked. */
    static boolean is(RuntimeException failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof PSQLException p && "23503".equals(p.getSQLState()) && p.getServerErrorMessage() != null
                    && CONSTRAINT.equals(p.getServerErrorMessage().getConstraint())) {
                return true;
            }
        }
        return false;
    }
}
