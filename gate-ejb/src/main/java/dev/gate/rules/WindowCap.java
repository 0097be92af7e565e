package dev.gate.rules;

import java.time.Instant;
import java.util.Optional;

/**
 * The send log's word: a window (t - window, t] may hold at most {@code calls} sends, whatever the beat says. Fed the
 * {@code calls}-th most recent send, it tells when the window has room for the next one: the moment that send leaves
 * it. That moment may be past (room now): it is still when a send held back by the cap became due. A window counts
 * units ({@link Cost}): for a call of several, it is fed the unit that must leave before they all fit
 * ({@link Cost#unitToLeave}). On an aligned rule (the vendor's fixed blocks) the send leaves the count when its block
 * ends: the window has room once the unit that must leave was sent in an earlier block.
 */
public final class WindowCap {

    private WindowCap() {
    }

    /**
     * @param pace             the limit
     * @param nthMostRecentSend the {@code calls}-th most recent send, if there are that many
     * @return when the next send fits the window (now or earlier: it fits now); empty: fewer sends than calls
     */
    public static Optional<Instant> roomAt(Pace pace, Optional<Instant> nthMostRecentSend) {
        if (pace.isAligned()) { // it leaves the count at the end of its block (a send within the margin before a
            // block's start counts in that block too)
            return nthMostRecentSend.map(sent -> pace.blocks().at(sent.plus(pace.margin())).end());
        }
        return nthMostRecentSend.map(sent -> sent.plus(pace.window()));
    }
}
