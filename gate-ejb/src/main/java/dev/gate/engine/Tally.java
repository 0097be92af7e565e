package dev.gate.engine;

import dev.gate.api.CallClass;
import dev.gate.domain.Grant;

/**
 * What this instance tells the operators' counters as it happens: the grants it made (with how long each call
 * waited), the calls it ended because their lease or deadline ran out, the grants it ended as abandoned, the
 * submissions that joined a live call by its dedupe key, and the callers it turned away because calls are paused.
 * Counts of one instance: a monitoring system sums them over the instances. Called on the engine's threads; an
 * implementation must not block.
 */
public interface Tally {

    /** Counts nothing (tests, benchmarks). */
    Tally NONE = new Tally() {
    };

    /** A grant this instance committed (the loop's or a caller's fast path). */
    default void granted(Grant grant) {
    }

    /** A waiting call ended as EXPIRED: {@code why} "lease" (its program stopped renewing) or "deadline". */
    default void expired(String limit, CallClass callClass, String why) {
    }

    /** A grant ended as ABANDONED: no outcome came within its lease. */
    default void abandoned(String limit, CallClass callClass) {
    }

    /** A join was refused: the limit's line (a keyed limit's: a key's line, or its keys) was full. */
    default void lineFull(String limit) {
    }

    /** A submission joined a live call of the same dedupe key: one send saved. */
    default void dedupeJoined(String limit) {
    }

    /**
     * A call's caller was told "calls are paused" (the database is unavailable, or no connection was free): refused
     * as it joined, or woken while it waited. Status reads and operators' actions refused the same way do not count.
     */
    default void turnedAwayPaused() {
    }
}
