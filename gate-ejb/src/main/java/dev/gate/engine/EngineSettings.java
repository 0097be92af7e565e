package dev.gate.engine;

import dev.gate.rules.TableCare;

import java.time.Duration;

/**
 * Timings of one gate instance.
 *
 * @param defaultLease lease of a call when its program names none
 * @param minLease     shortest lease a program may ask for; at least three heartbeats, so that a call renewed by
 *                     this instance can never run out while its caller waits (one late heartbeat is not fatal)
 * @param maxLease     longest lease a program may ask for
 * @param heartbeat    how often this instance renews its waiters' leases (before it clears lapsed ones)
 * @param waiterPoll   how often this instance checks its waiters' calls in the table (the safety net under
 *                     notifications) and clears lapsed leases
 * @param idlePoll     longest sleep of the slot loop when nothing is due (it also wakes when a call joins here)
 * @param retry        sleep of the slot loop, and period of the health probe, while the database is unavailable
 * @param callerConcurrency most caller operations (join, fast path, cancel, complete) using the database at once;
 *                          more wait up to {@code callerWait} for their turn, then are told calls are paused
 * @param callerWait   longest wait of a caller operation for its turn at the database
 * @param retention    how long finished calls are kept (the send log keeps only what its windows need)
 * @param pruneEvery   how often the housekeeping deletes what retention no longer keeps
 * @param tableCare    when the gate's tables need a vacuum, and when a transaction holds vacuum back too long
 * @param selfVacuum   whether the gate vacuums its tables itself where autovacuum does not (else it warns)
 */
public record EngineSettings(Duration defaultLease, Duration minLease, Duration maxLease, Duration heartbeat,
                             Duration waiterPoll, Duration idlePoll, Duration retry, int callerConcurrency,
                             Duration callerWait, Duration retention, Duration pruneEvery, TableCare tableCare,
                             boolean selfVacuum) {

    public static final int DEFAULT_CALLER_CONCURRENCY = 16;

    public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);

    public EngineSettings {
        if (minLease.compareTo(heartbeat.multipliedBy(3)) < 0) {
            throw new IllegalArgumentException("the shortest lease (" + minLease + ") must be at least three "
                    + "heartbeats (" + heartbeat + " each)");
        }
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("retention must be positive: " + retention);
        }
    }

    /** With the default table care, self-vacuum on. */
    public EngineSettings(Duration defaultLease, Duration minLease, Duration maxLease, Duration heartbeat,
                          Duration waiterPoll, Duration idlePoll, Duration retry, int callerConcurrency,
                          Duration callerWait, Duration retention, Duration pruneEvery) {
        this(defaultLease, minLease, maxLease, heartbeat, waiterPoll, idlePoll, retry, callerConcurrency, callerWait,
                retention, pruneEvery, TableCare.DEFAULTS, true);
    }

    /** With the default retention (7 days), pruned every minute. */
    public EngineSettings(Duration defaultLease, Duration minLease, Duration maxLease, Duration heartbeat,
                          Duration waiterPoll, Duration idlePoll, Duration retry, int callerConcurrency,
                          Duration callerWait) {
        this(defaultLease, minLease, maxLease, heartbeat, waiterPoll, idlePoll, retry, callerConcurrency, callerWait,
                DEFAULT_RETENTION, Duration.ofMinutes(1));
    }

    public static EngineSettings defaults() {
        return new EngineSettings(Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(300),
                Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofMillis(250),
                DEFAULT_CALLER_CONCURRENCY, Duration.ofMillis(900));
    }

    public EngineSettings withCallerConcurrency(int callers) {
        return new EngineSettings(defaultLease, minLease, maxLease, heartbeat, waiterPoll, idlePoll, retry, callers,
                callerWait, retention, pruneEvery, tableCare, selfVacuum);
    }

    public EngineSettings withRetention(Duration keep, Duration every) {
        return new EngineSettings(defaultLease, minLease, maxLease, heartbeat, waiterPoll, idlePoll, retry,
                callerConcurrency, callerWait, keep, every, tableCare, selfVacuum);
    }

    public EngineSettings withTableCare(TableCare care, boolean vacuumItself) {
        return new EngineSettings(defaultLease, minLease, maxLease, heartbeat, waiterPoll, idlePoll, retry,
                callerConcurrency, callerWait, retention, pruneEvery, care, vacuumItself);
    }
}
