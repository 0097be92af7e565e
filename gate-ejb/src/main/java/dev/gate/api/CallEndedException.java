package dev.gate.api;

/** The call left the line without a grant (its lease ran out, or it was cancelled); it will never be granted. */
public class CallEndedException extends GateException {

    private static final long serialVersionUID = 1L;

    public CallEndedException(String message) {
        super(message);
    }
}
