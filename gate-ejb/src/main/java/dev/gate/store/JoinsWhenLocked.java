package dev.gate.store;

/**
 * The free line's memo ({@link FirstTry}): the limits whose held slot lock the free line lately found it should not
 * queue on (calls waiting, a burst allowance, turns...): for a second, a call that meets the lock there joins at once,
 * without asking again (a transaction each; joining is always allowed, the free line only saves time: SideBySide, 4
 * and 16 callers, 8-12% more cycles a second). At most {@link #MAX} limits.
 */
final class JoinsWhenLocked {
    static final int MAX = 10_000;
    private static final long FOR_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);
    private final java.util.concurrent.ConcurrentHashMap<String, Long> until =
            new java.util.concurrent.ConcurrentHashMap<>();

    boolean joins(String limit) {
        Long t = until.get(limit);
        if (t == null) {
            return false;
        }
        if (t - System.nanoTime() > 0) {
            return true;
        }
        until.remove(limit, t);
        return false;
    }

    void noted(String limit) {
        if (until.size() >= MAX) {
            until.clear(); // many contended limits at once (keys): forget them all rather than grow
        }
        until.put(limit, System.nanoTime() + FOR_NANOS);
    }

    int size() {
        return until.size();
    }
}
