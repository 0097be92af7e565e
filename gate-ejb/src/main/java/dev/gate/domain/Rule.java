package dev.gate.domain;

import jakarta.persistence.Column;
import jakarta.persistence.Embeddable;

/** One more rule of a limit's vendor: {@code calls} per {@code windowMs}. */
@Embeddable
public class Rule {

    @Column(name = "calls", nullable = false)
    private int calls;

    @Column(name = "window_ms", nullable = false)
    private long windowMs;

    protected Rule() {
        // for JPA
    }

    Rule(int calls, long windowMs) {
        this.calls = calls;
        this.windowMs = windowMs;
    }

    public int calls() {
        return calls;
    }

    public long windowMs() {
        return windowMs;
    }
}
