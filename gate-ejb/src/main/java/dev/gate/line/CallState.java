package dev.gate.line;

/** Where a call is in its life. Only WAITING calls are in the line; only GRANTED ones may be sent. */
public enum CallState {
    WAITING, GRANTED, DONE, CANCELLED, EXPIRED
}
