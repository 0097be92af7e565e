package dev.gate.rules;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * When a waiting call can expect its grant, at the earliest: the limit's next chance to send (its slot, turned at the
 * end of the last send's block as a grant turns it, the end of a cool-down, the end of a vendor's count that the units
 * ahead and the call's own would pass, whichever is latest, and not before now), plus one gap for every unit ahead of
 * it (a call of cost 3 ahead is three gaps) less those the burst allowance lets go back to back, never closer than the
 * minimum spacing, and the beat restarting where the first send's block ends; and not before the block of each rule
 * on the vendor's calendar that can hold the call's units after those ahead and those its current block already
 * holds. An estimate that errs early: window caps, keys and later arrivals of a higher class can only make the grant
 * later, so a deadline before it cannot be met.
 */
public final class WaitEstimate {

    /** The most blocks counted one by one; past it, whole lengths (a line that long waits days anyway). */
    private static final int MOST_BLOCKS_WALKED = 800;

    /** An aligned rule and the units its current block (the one of "now") already holds. */
    public record BlockUse(Pace rule, long used) {
    }

    private WaitEstimate() {
    }

    /**
     * @param nextSlot   the limit's next slot as written, and {@code lastSend} its last send (empty: none)
     * @param notBefore  nothing of the limit goes before it (null: no such moment): a cool-down's end, and for a key
     *                   under a parent the parent's next slot and pause (the parent's beat bounds each of the key's
     *                   units, not the key's own beat: a key's burst still goes once the parent's slot comes)
     * @param unitsAhead the units of the live calls ahead in the line
     * @param rules      the limit's rules (at its adaptive rate), burst and spacing
     * @param count      the vendor's count in force (null: none); {@code sent} the limit's units logged so far
     */
    public static Instant grantAt(Instant now, Instant nextSlot, Optional<Instant> lastSend, Instant notBefore,
                                  long unitsAhead, Cost cost, LimitRules rules, VendorCount count, long sent,
                                  List<BlockUse> blocks) {
        Instant slot = SlotRule.blockTurn(rules, nextSlot, lastSend); // a new block's first send is due at once
        Instant first = latest(now, slot, notBefore);
        Instant at = paced(first, slot, unitsAhead, rules);
        if (count != null && count.holdsUntil(sent, new Cost((int) Math.min(Integer.MAX_VALUE,
                unitsAhead + cost.units())), now).isPresent()) {
            // the vendor's count: the units ahead that it still leaves room for may go before its reset (the grant
            // pass sends them), the rest of them after it, and this call's own after those
            long afterReset = Math.max(0, unitsAhead - count.left(sent));
            at = latest(at, paced(latest(first, count.resetAt(), null), slot, afterReset, rules), null);
        }
        for (BlockUse b : blocks) {
            at = latest(at, blockFor(b, unitsAhead + cost.units(), now), null);
        }
        return at;
    }

    /**
     * The earliest a call goes with {@code unitsAhead} units ahead of it, none before {@code first}. GCRA: the beat
     * runs from the slot, or from the first send less the burst's tolerance when the slot lies further back (idle time
     * filled the allowance): that many units go back to back, then a gap each; never closer than the minimum spacing;
     * the beat restarts where the first send's block ends.
     */
    private static Instant paced(Instant first, Instant slot, long unitsAhead, LimitRules rules) {
        Duration gap = rules.gap();
        Instant base = latest(slot, first.minus(gap.multipliedBy(rules.burst() - 1L)), null);
        Instant spaced = first.plus(rules.minInterval().multipliedBy(unitsAhead));
        Instant at = latest(first, base.plus(gap.multipliedBy(unitsAhead)), spaced);
        if (unitsAhead > 0) { // the block of the first send ahead ends: the next block's first send is due at once
            Instant turn = SlotRule.blockTurn(rules, at, Optional.of(first));
            at = turn.isBefore(at) ? latest(turn, spaced, null) : at;
        }
        return at;
    }

    /** The start of the block the call's units can go in: the current one's, unless they do not fit it. */
    private static Instant blockFor(BlockUse b, long units, Instant now) {
        long calls = b.rule().calls();
        long need = b.used() + units;
        CalendarBlocks blocks = b.rule().blocks();
        CalendarBlocks.Block block = blocks.at(now);
        if (need <= calls) {
            return null; // it fits the current block: the beat alone says when
        }
        long later = (need - 1) / calls; // whole blocks of calls after the current one
        for (long i = 0; i < later && i < MOST_BLOCKS_WALKED; i++) {
            block = blocks.at(block.end());
        }
        Instant start = block.start();
        return later > MOST_BLOCKS_WALKED ? start.plus(blocks.length().multipliedBy(later - MOST_BLOCKS_WALKED)) : start;
    }

    private static Instant latest(Instant a, Instant b, Instant c) {
        Instant m = a;
        if (b != null && b.isAfter(m)) {
            m = b;
        }
        if (c != null && c.isAfter(m)) {
            m = c;
        }
        return m;
    }
}
