package dev.gate.rules;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What a vendor's "slow down" does to the whole limit. A rate-limit signal (429, or 503 with Retry-After) pauses
 * every class for as long as the vendor asked, or the floor when it did not say, and at least the ladder's current
 * step: repeated signals climb the ladder (default 2 s, 5 s, 15 s, 30 s, 60 s); a run of successes steps it down.
 * What a program reports the vendor asked is taken up to {@code longestAsk} (default 1 h): one program's outcome
 * cannot pause every program's line for a day. The ladder's own steps are the operator's and are not capped.
 */
public record CoolDownLadder(List<Duration> steps, Duration floor, int stepDownAfter, Duration longestAsk) {

    /** The longest Retry-After a program's outcome is taken at when the limit does not say. */
    public static final Duration DEFAULT_LONGEST_ASK = Duration.ofHours(1);

    public CoolDownLadder {
        steps = List.copyOf(steps);
        if (steps.isEmpty() || floor.isNegative() || floor.isZero() || stepDownAfter < 1) {
            throw new IllegalArgumentException("a cool-down needs steps, a positive floor and a positive run");
        }
        if (longestAsk.isNegative() || longestAsk.isZero()) {
            throw new IllegalArgumentException("the longest Retry-After taken must be positive");
        }
    }

    public CoolDownLadder(List<Duration> steps, Duration floor, int stepDownAfter) {
        this(steps, floor, stepDownAfter, DEFAULT_LONGEST_ASK);
    }

    /** What a reported Retry-After is taken as: at most {@link #longestAsk}. */
    public Optional<Duration> taken(Optional<Duration> asked) {
        return asked.map(a -> a.compareTo(longestAsk) > 0 ? longestAsk : a);
    }

    /** Whether the vendor's answer says "slow down"; such an answer is no failure of the call itself. */
    public static boolean isRateLimitSignal(int status, Integer retryAfterSeconds) {
        return status == 429 || (status == 503 && retryAfterSeconds != null);
    }

    /** A rate-limit signal at {@code now}: one step up, and paused at least until the longer of ask and step. */
    public CoolDown signalled(CoolDown state, Optional<Duration> asked, Instant now) {
        int step = Math.min(state.step() + 1, steps.size());
        Duration pause = taken(asked).filter(a -> !a.isNegative() && !a.isZero()).orElse(floor);
        Duration ladder = steps.get(step - 1);
        if (ladder.compareTo(pause) > 0) {
            pause = ladder;
        }
        Instant until = now.plus(pause);
        if (state.pausedUntil() != null && state.pausedUntil().isAfter(until)) {
            until = state.pausedUntil();
        }
        return new CoolDown(step, 0, until);
    }

    /** A success: one more in the run; a full run steps the ladder down by one. The current pause stays. */
    public CoolDown succeeded(CoolDown state) {
        int run = state.successRun() + 1;
        if (state.step() > 0 && run >= stepDownAfter) {
            return new CoolDown(state.step() - 1, 0, state.pausedUntil());
        }
        return new CoolDown(state.step(), state.step() == 0 ? 0 : run, state.pausedUntil());
    }
}
