package dev.gate.api;

/** A limit declaration the gate cannot take (a rule out of range, a bad name); nothing was changed. */
public class InvalidLimitException extends InvalidRequestException {

    private static final long serialVersionUID = 1L;

    public InvalidLimitException(String message) {
        super(message);
    }
}
