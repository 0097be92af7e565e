package dev.gate.api;

/** A request the gate cannot take as it is (a field out of range, a name too long); nothing was changed. */
public class InvalidRequestException extends GateException {

    private static final long serialVersionUID = 1L;

    public InvalidRequestException(String message) {
        super(message);
    }
}
