package dev.gate.api;

import java.io.Serializable;
import java.time.Instant;

/** One rule of a limit and how much of its window is used: "412 of 600 in the last 60 s". A bean for EL and JSON. */
public final class RuleUse implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int calls;
    private final long windowMs;
    private final long used;
    private final String alignedZone;
    private final String alignedAt;
    private final Instant resetsAt;

    public RuleUse(int calls, long windowMs, long used) {
        this(calls, windowMs, used, null, null, null);
    }

    /** An aligned rule: its zone, its reset time (HH:MM) and the end of its current block; all null: sliding. */
    public RuleUse(int calls, long windowMs, long used, String alignedZone, String alignedAt, Instant resetsAt) {
        this.calls = calls;
        this.windowMs = windowMs;
        this.used = used;
        this.alignedZone = alignedZone;
        this.alignedAt = alignedAt;
        this.resetsAt = resetsAt;
    }

    /** The vendor's zone of an aligned rule (its fixed blocks); null: a sliding window. */
    public String getAlignedZone() {
        return alignedZone;
    }

    /** An aligned rule's reset time in its zone ("00:00"); null: a sliding window. */
    public String getAlignedAt() {
        return alignedAt;
    }

    /** When an aligned rule's current block ends and its count starts again; null: a sliding window. */
    public Instant getResetsAt() {
        return resetsAt;
    }

    public int getCalls() {
        return calls;
    }

    public long getWindowMs() {
        return windowMs;
    }

    /** Sends (units) in the rule's current window: of an aligned rule, in its current block. */
    public long getUsed() {
        return used;
    }
}
