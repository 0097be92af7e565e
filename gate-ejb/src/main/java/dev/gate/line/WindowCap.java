package dev.gate.line;

import java.time.Instant;
import java.util.Optional;

/**
 * The send log's word: a window (t - window, t] may hold at most {@code calls} sends, whatever the beat says. Fed the
 * {@code calls}-th most recent send still inside the window (absent when the window has room), it tells when the
 * window next has room: the moment that send leaves it.
 */
public final class WindowCap {

    private WindowCap() {
    }

    /**
     * @param pace             the limit
     * @param nthMostRecentSend the {@code calls}-th most recent send after {@code now - window}, if there are that many
     * @return when the next send fits the window; empty when it fits now
     */
    public static Optional<Instant> roomAt(Pace pace, Optional<Instant> nthMostRecentSend) {
        return nthMostRecentSend.map(sent -> sent.plus(pace.window()));
    }
}
