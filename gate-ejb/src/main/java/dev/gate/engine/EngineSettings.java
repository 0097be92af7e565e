package dev.gate.engine;

import java.time.Duration;

/**
 * Timings of one gate instance.
 *
 * @param defaultLease lease of a call when its program names none
 * @param minLease     shortest lease a program may ask for
 * @param maxLease     longest lease a program may ask for
 * @param heartbeat    how often this instance renews its waiters' leases and clears lapsed ones
 * @param waiterPoll   how often this instance checks its waiters' calls in the table (the safety net under
 *                     notifications)
 * @param idlePoll     longest sleep of the slot loop when nothing is due (it also wakes when a call joins here)
 * @param retry        sleep of the slot loop after a failed pass
 */
public record EngineSettings(Duration defaultLease, Duration minLease, Duration maxLease, Duration heartbeat,
                             Duration waiterPoll, Duration idlePoll, Duration retry) {

    public static EngineSettings defaults() {
        return new EngineSettings(Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(300),
                Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofMillis(250));
    }

    public EngineSettings withHeartbeat(Duration every) {
        return new EngineSettings(defaultLease, minLease, maxLease, every, waiterPoll, idlePoll, retry);
    }

    public EngineSettings withLeaseBounds(Duration min, Duration max) {
        return new EngineSettings(defaultLease, min, max, heartbeat, waiterPoll, idlePoll, retry);
    }
}
