package dev.gate.api;

/**
 * The gate's database is up but was busy (a lock held too long by another instance, a statement cancelled): the
 * step was tried again and still could not finish. Nothing was changed for this step: if it was a call, the call has
 * left the line. Try again shortly; calls are not paused.
 */
public class GateBusyException extends GateException {

    private static final long serialVersionUID = 1L;

    public static final String MESSAGE = "the gate is busy, try again";

    public GateBusyException(String cause) {
        super(MESSAGE + " (" + cause + ")");
    }
}
