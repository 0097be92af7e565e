package dev.gate.api;

/**
 * Calls are paused because the gate's database is unavailable: the gate cannot confirm a grant, so it gives none.
 * Try again later; nothing was granted for this call.
 */
public class GatePausedException extends GateException {

    private static final long serialVersionUID = 1L;

    public static final String MESSAGE = "calls are paused: the gate's database is unavailable";

    public GatePausedException(String cause) {
        super(MESSAGE + " (" + cause + ")");
    }
}
