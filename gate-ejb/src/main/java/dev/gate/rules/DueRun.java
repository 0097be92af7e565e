package dev.gate.rules;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The sends a limit may make one after another at one moment, for a grant pass that grants them all in one statement:
 * each is what {@link SlotRule} decides once the sends before it have gone out at that moment, and moves the beat as
 * {@link Beat} does. So a run is exactly what granting one call at a time would give; only the round trips differ.
 *
 * <p>A grant records its sends at its statement's own clock read, a little after the moment the run was decided for.
 * Where the beat restarts "from the actual send", that moment matters: a run therefore ends after a step that
 * restarts the beat, unless it is the first, and then goes on only while each later send is due on the beat alone
 * (no cap or spacing holds it later), so that every slot of the run either is fixed or moves with the first send's
 * recorded time ({@link Step#fromFirstSend}).
 */
public final class DueRun {

    /**
     * One send of a run.
     *
     * @param due           the slot it takes: the beat, or later where a cap, the spacing or a cool-down held it
     * @param kept          the beat after it if it keeps the beat: {@code due} + gap
     * @param restart       present when the send slipped more than a gap: the next slot is this long after the
     *                      send, or {@code kept} if that is later
     * @param fromFirstSend its {@code due} and {@code kept} are counted from the run's first send (which restarted
     *                      the beat), so they move with that send's recorded time
     */
    public record Step(Instant due, Instant kept, Optional<Duration> restart, boolean fromFirstSend) {

        /** The next slot, the send having gone out at {@code sentAt}. */
        public Instant next(Instant sentAt) {
            return restart.map(sentAt::plus).filter(kept::isBefore).orElse(kept);
        }
    }

    private DueRun() {
    }

    /**
     * Up to {@code max} sends due at {@code now}, in order; empty when none is.
     *
     * @param windowSends per rule of {@code limit} (same order), the sends from its {@code calls}-th most recent on,
     *                    oldest first: element i becomes that rule's {@code calls}-th most recent once i more sends
     *                    have gone (empty: there was none). A rule's list may be shorter than the run: the run ends
     *                    where a list gives out.
     * @param lastSend    the limit's most recent send, if any
     * @param pausedUntil the end of the limit's cool-down, or null
     */
    public static List<Step> plan(LimitRules limit, Instant now, Instant slot,
                                  List<List<Optional<Instant>>> windowSends, Optional<Instant> lastSend,
                                  Instant pausedUntil, int max) {
        Duration gap = limit.gap();
        List<Step> run = new ArrayList<>();
        boolean fromFirst = false;
        while (run.size() < max) {
            int i = run.size();
            List<Optional<Instant>> nth = new ArrayList<>();
            for (int r = 0; r < limit.rules().size(); r++) {
                if (i >= limit.rules().get(r).calls()) {
                    nth.add(Optional.of(now)); // the rule's window would be full of this run's own sends
                } else if (i < windowSends.get(r).size()) {
                    nth.add(windowSends.get(r).get(i));
                } else {
                    return run; // not read: ask again
                }
            }
            SlotDecision decision = SlotRule.decide(limit, now, slot, nth, i == 0 ? lastSend : Optional.of(now),
                    pausedUntil);
            if (!decision.sendNow() || (fromFirst && !decision.notBefore().equals(slot))) {
                return run;
            }
            Instant due = decision.notBefore();
            Instant kept = due.plus(gap);
            Step step = new Step(due, kept, Beat.restartAfter(due, now, gap, limit.burst()), fromFirst);
            run.add(step);
            slot = step.next(now);
            if (slot.isAfter(kept)) { // the beat restarts from this send
                if (i > 0) {
                    return run;
                }
                fromFirst = true;
            }
        }
        return run;
    }
}
