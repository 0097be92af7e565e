package dev.gate.rules;

import java.time.Instant;

/**
 * A limit's cool-down state: how far up the ladder it stands, how many successes in a row since, and until when
 * the whole limit is paused (null: not paused).
 */
public record CoolDown(int step, int successRun, Instant pausedUntil) {

    public static final CoolDown NONE = new CoolDown(0, 0, null);
}
