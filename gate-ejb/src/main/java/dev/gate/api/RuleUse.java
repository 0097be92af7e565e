package dev.gate.api;

import java.io.Serializable;

/** One rule of a limit and how much of its window is used: "412 of 600 in the last 60 s". A bean for EL and JSON. */
public final class RuleUse implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int calls;
    private final long windowMs;
    private final long used;

    public RuleUse(int calls, long windowMs, long used) {
        this.calls = calls;
        this.windowMs = windowMs;
        this.used = used;
    }

    public int getCalls() {
        return calls;
    }

    public long getWindowMs() {
        return windowMs;
    }

    /** Sends in the rule's current window. */
    public long getUsed() {
        return used;
    }
}
