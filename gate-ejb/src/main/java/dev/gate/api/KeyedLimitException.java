package dev.gate.api;

/**
 * A call and a limit disagree on keys: the limit is keyed and the call named no key, or the call named a key and
 * the limit is not keyed. Nothing joined the line.
 */
public class KeyedLimitException extends GateException {

    private static final long serialVersionUID = 1L;

    public KeyedLimitException(String message) {
        super(message);
    }
}
