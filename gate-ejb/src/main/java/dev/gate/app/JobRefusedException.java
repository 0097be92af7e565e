package dev.gate.app;

/** An operator's request on a job the gate cannot do; {@link #kind()} says why. Nothing was changed. */
public class JobRefusedException extends Exception {

    private static final long serialVersionUID = 1L;

    /** Why: bad parameters, no such execution, or the execution's state does not allow it. */
    public enum Kind { INVALID, NOT_FOUND, CONFLICT }

    private final Kind kind;

    public JobRefusedException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
