package dev.gate.engine;

import dev.gate.engine.HistoryChecks.Send;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;

/**
 * When the rules, as the gate documents them, let a limit send: the oracle of the lock-out checks, written apart from
 * the gate's rule code (it shares none of it). A unit is due when the beat is due (the last call's position, its slot
 * or its send if later, plus a gap per unit of it; the gap the slowest rule's window, widened by the receipt margin
 * where it slides, over its calls; a block of the vendor's calendar that began since the last send starts the beat
 * anew) and every rule has room for the call's units: a sliding rule's window, widened by the margin, ending now;
 * a block's, counting a send that reaches it within the margin; and never sooner than the minimum spacing after the
 * last call (per unit of it), a new block or not. It errs late: a burst allowance or a restarted beat
 * only brings a send sooner.
 */
final class HistoryOracle {

    private HistoryOracle() {
    }

    /**
     * The earliest moment from {@code t} on when a call of {@code cost} may go by the rules, the log as it was before
     * {@code t} (units after it are not read).
     *
     * @param rulesAt the limit's rules in force at a moment (a re-pace changes the main rule's calls)
     * @param spacingMs the limit's minimum spacing between two sends (0: none)
     */
    static Instant dueAt(Function<Instant, List<HistoryVendor.Rule>> rulesAt, long marginMs, long spacingMs,
                         List<Send> log, Instant t, int cost) {
        List<HistoryVendor.Rule> rules = rulesAt.apply(t);
        List<Send> before = log.stream().filter(s -> s.sentAt().isBefore(t)).toList();
        if (before.isEmpty()) {
            return t;
        }
        Instant due = t;
        Send last = before.get(before.size() - 1);
        int lastCost = (int) before.stream().filter(s -> s.callId() == last.callId()).count();
        Instant position = last.slotAt() != null && last.slotAt().isAfter(last.sentAt()) ? last.slotAt()
                : last.sentAt();
        // the larger of the gaps in force at the last send and now (a change takes effect at the next slot)
        long gapUs = Math.max(Math.max(gapUs(rules, marginMs), gapUs(rulesAt.apply(last.sentAt()), marginMs)),
                spacingMs * 1000L); // the minimum spacing, where it is wider than the beat
        Instant beat = position.plus(Duration.ofNanos(gapUs * 1_000L * lastCost));
        for (HistoryVendor.Rule r : rules) { // the vendor's next block starts the beat anew
            Instant next = r.aligned() ? r.block(last.sentAt().plusMillis(marginMs))[1] : null;
            if (next != null && next.isBefore(beat)) {
                beat = next;
            }
        }
        Instant spaced = position.plusMillis(spacingMs * lastCost); // but never sooner than the spacing (seed 60037)
        if (spaced.isAfter(beat)) {
            beat = spaced;
        }
        if (beat.isAfter(due)) {
            due = beat;
        }
        for (HistoryVendor.Rule r : rules) {
            int need = r.calls() - Math.min(cost, r.calls()); // units that may be in the window with the call's
            int index = before.size() - need - 1; // the unit that must have left it
            if (index < 0) {
                continue;
            }
            Instant leaving = before.get(index).sentAt();
            Instant leaves = r.aligned() ? r.block(leaving.plusMillis(marginMs))[1]
                    : leaving.plusMillis(r.ms() + marginMs);
            if (leaves.isAfter(due)) {
                due = leaves;
            }
        }
        return due;
    }

    /**
     * Whether a call of {@code cost} may go at {@code t} on a limit of sliding rules with a burst allowance, by the
     * generic cell rate its documentation names: each unit of the log moves a theoretical arrival time on by a gap
     * (the slowest rule's, widened by the margin), from the unit's send if that is later; a call goes when that time,
     * moved on by its own units, is no more than {@code burst} gaps ahead of it, and every rule's window (widened by
     * the margin) ending at {@code t} has room for its units. A fresh limit, and one idle long enough, goes {@code burst}
     * units back to back (defect 7 of issue 52). Only the log before {@code t} is read.
     */
    static boolean dueWithBurst(List<HistoryVendor.Rule> rules, long marginMs, int burst, List<Send> log, Instant t,
                                int cost) {
        long gapUs = gapUs(rules, marginMs);
        List<Send> before = log.stream().filter(s -> s.sentAt().isBefore(t)).toList();
        long tat = Long.MIN_VALUE; // in microseconds from t: the theoretical arrival time after the log's units
        for (Send s : before) {
            long sent = Duration.between(t, s.sentAt()).toNanos() / 1000;
            tat = Math.max(tat, sent) + gapUs;
        }
        if (Math.max(tat, 0) + cost * gapUs > burst * gapUs) {
            return false;
        }
        for (HistoryVendor.Rule r : rules) {
            Instant since = t.minusMillis(r.ms() + marginMs);
            long in = before.stream().filter(s -> s.sentAt().isAfter(since)).count();
            if (in + cost > r.calls()) {
                return false;
            }
        }
        return true;
    }

    /** The beat's gap in microseconds: the slowest rule's window (widened by the margin where it slides) per call. */
    private static long gapUs(List<HistoryVendor.Rule> rules, long marginMs) {
        long gap = 1;
        for (HistoryVendor.Rule r : rules) {
            long window = (r.ms() + (r.aligned() ? 0 : marginMs)) * 1000L;
            gap = Math.max(gap, (window + r.calls() - 1) / r.calls());
        }
        return gap;
    }
}
