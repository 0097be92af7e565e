package dev.gate.api;

/**
 * Where a call is in its life. Only WAITING calls are in the line; only GRANTED ones may be sent. ABANDONED: granted,
 * but its lease ran out without an outcome (or its waiter was gone), so its keys are free; a late outcome still counts.
 */
public enum CallState {
    WAITING, GRANTED, DONE, CANCELLED, EXPIRED, ABANDONED
}
