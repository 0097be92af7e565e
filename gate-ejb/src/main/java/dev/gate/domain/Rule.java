package dev.gate.domain;

import dev.gate.rules.CalendarBlocks;
import dev.gate.rules.Pace;
import jakarta.persistence.Column;
import jakarta.persistence.Embeddable;

import java.time.Duration;
import java.time.LocalTime;
import java.time.ZoneId;

/** One more rule of a limit's vendor: {@code calls} per {@code windowMs}, sliding or on the vendor's fixed blocks. */
@Embeddable
public class Rule {

    @Column(name = "calls", nullable = false)
    private int calls;

    @Column(name = "window_ms", nullable = false)
    private long windowMs;

    // on the vendor's fixed blocks (both null: a sliding window)
    @Column(name = "aligned_zone", length = 64)
    private String alignedZone;

    @Column(name = "aligned_at")
    private LocalTime alignedAt;

    protected Rule() {
        // for JPA
    }

    Rule(Pace pace) {
        this.calls = pace.calls();
        this.windowMs = pace.window().toMillis();
        this.alignedZone = pace.isAligned() ? pace.blocks().zone().getId() : null;
        this.alignedAt = pace.isAligned() ? pace.blocks().at() : null;
    }

    public int calls() {
        return calls;
    }

    public long windowMs() {
        return windowMs;
    }

    public Pace pace() {
        return alignedZone == null ? new Pace(calls, Duration.ofMillis(windowMs))
                : Pace.aligned(calls, new CalendarBlocks(Duration.ofMillis(windowMs), ZoneId.of(alignedZone),
                alignedAt));
    }
}
