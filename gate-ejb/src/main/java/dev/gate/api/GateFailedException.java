package dev.gate.api;

/**
 * The gate failed to do a step (a fault of its own, logged with the cause for the operators); nothing was changed for
 * this step, and a call has left the line. The message names the step, never the database's own error text.
 */
public class GateFailedException extends GateException {

    private static final long serialVersionUID = 1L;

    public GateFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
