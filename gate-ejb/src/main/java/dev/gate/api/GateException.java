package dev.gate.api;

/** Something the caller of the gate must handle: no permit was given. */
public class GateException extends Exception {

    private static final long serialVersionUID = 1L;

    public GateException(String message) {
        super(message);
    }

    public GateException(String message, Throwable cause) {
        super(message, cause);
    }
}
