package dev.gate.api;

/** No limit of that name is configured. */
public class UnknownLimitException extends GateException {

    private static final long serialVersionUID = 1L;

    public UnknownLimitException(String limit) {
        super("no limit named '" + limit + "' is configured");
    }
}
