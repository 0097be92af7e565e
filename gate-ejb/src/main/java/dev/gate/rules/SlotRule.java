package dev.gate.rules;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Whether a limit may send now: its slot must be due (the beat), its windows must have room (the caps), its minimum
 * spacing must have passed and it must not be cooling down. All must agree; the latest of them is when to look again.
 *
 * <p>That latest moment is also the slot a send takes when it goes (see {@link Beat}): when a window cap held a send
 * back (one window after an earlier send that was late), the beat goes on from the moment the window had room.
 * Counted from the held-back beat instead, the sends after it would come closer than a gap, and one window later the
 * cap would hold them back in turn: one late send would echo, window after window, growing by the loop's own
 * lateness each time, until the schedule slipped a whole gap (measured in the demo at 20 per second: 6 in 10 sends
 * held by the cap, lateness 16 ms at the median and up to 73 ms).
 */
public final class SlotRule {

    private SlotRule() {
    }

    public static SlotDecision decide(Pace pace, Instant now, Instant nextSlot, Optional<Instant> nthMostRecentSend) {
        return decide(LimitRules.of(pace), now, nextSlot, List.of(nthMostRecentSend), Optional.empty(), null);
    }

    /**
     * With every rule of a limit: the slot must be due, every rule's window must have room, the last send must be
     * at least the minimum spacing ago, and no cool-down may be running.
     *
     * @param nthMostRecentSends per rule (same order), its {@code calls}-th most recent send
     * @param lastSend           the most recent send of the limit, if any
     * @param pausedUntil        the end of the limit's cool-down, or null
     */
    public static SlotDecision decide(LimitRules limit, Instant now, Instant nextSlot,
                                      List<Optional<Instant>> nthMostRecentSends, Optional<Instant> lastSend,
                                      Instant pausedUntil) {
        Instant earliest = blockTurn(limit, nextSlot, lastSend);
        for (int i = 0; i < limit.rules().size(); i++) {
            earliest = later(earliest, WindowCap.roomAt(limit.rules().get(i), nthMostRecentSends.get(i)));
        }
        if (!limit.minInterval().isZero()) {
            earliest = later(earliest, lastSend.map(s -> s.plus(limit.minInterval())));
        }
        earliest = later(earliest, Optional.ofNullable(pausedUntil));
        return now.isBefore(earliest) ? SlotDecision.waitUntil(earliest) : SlotDecision.sendNow(earliest);
    }

    /**
     * The beat paces inside a vendor's block: once the block of the last send is over (an aligned rule's, the send
     * counted in the block its margin puts it in), a new block's first send is due at once, whatever the beat says.
     * A grant writes the next slot so ({@code gate_block_turn} in SQL), and a decision reads it so.
     */
    public static Instant blockTurn(LimitRules limit, Instant nextSlot, Optional<Instant> lastSend) {
        Instant slot = nextSlot;
        if (lastSend.isEmpty()) {
            return slot;
        }
        for (Pace p : limit.rules()) {
            if (p.isAligned()) {
                Instant ended = p.blocks().at(lastSend.get().plus(p.margin())).end();
                slot = ended.isBefore(slot) ? ended : slot;
            }
        }
        return slot;
    }

    private static Instant later(Instant a, Optional<Instant> b) {
        return b.isPresent() && b.get().isAfter(a) ? b.get() : a;
    }
}
