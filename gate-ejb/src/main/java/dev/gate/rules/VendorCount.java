package dev.gate.rules;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.ToLongFunction;

/**
 * What the vendor last said of its own count (X-RateLimit-Remaining / -Reset, RateLimit): {@code remaining} units
 * left until {@code resetAt}, as of the reporting call's send ({@code afterUnit}: the number of its last unit in the
 * limit's send log). When the vendor counts more than the gate (another client of the same account, a quota shared
 * with a partner), the vendor is right: until its reset, the gate sends at most {@code remaining} units after that
 * send, whatever its own windows would allow. Units granted after the reporting call but before its report count
 * against it too (the vendor may not have seen them yet): the gate errs on the side of fewer sends.
 *
 * <p>A count the gate's own sends explain ({@link #explained}) holds nothing: only a vendor that counts more than
 * the gate sent (others use the account) holds it back. Never trusted beyond the declared rule: a report can only hold sends back, a remaining count above the rule's
 * calls is not a count of this rule ({@link #accepted}), and a hold obeys a cool-down's rules ({@link #resetCap}): it
 * lasts at most the limit's longest window and its maxCoolDown, and an operator's resume ends it.
 */
public record VendorCount(long afterUnit, int remaining, Instant resetAt) {

    public VendorCount {
        Objects.requireNonNull(resetAt, "resetAt");
        if (remaining < 0) {
            throw new IllegalArgumentException("remaining must not be negative: " + remaining);
        }
    }

    /**
     * Until when a call of {@code cost} waits at {@code now} with {@code sent} units logged: the reset, when the units
     * sent since the report and this call's would pass what the vendor said was left; empty otherwise (or once reset).
     */
    public Optional<Instant> holdsUntil(long sent, Cost cost, Instant now) {
        if (!now.isBefore(resetAt)) {
            return Optional.empty();
        }
        long after = Math.max(0, sent - afterUnit);
        return after + cost.units() > remaining ? Optional.of(resetAt) : Optional.empty();
    }

    /** What is left by the vendor's word at {@code sent} units logged (never below 0). */
    public long left(long sent) {
        return Math.max(0, remaining - Math.max(0, sent - afterUnit));
    }

    /**
     * Whether a count is explained by the gate's own sends: the vendor counts no more used than the gate itself logged
     * in the window of the rule the count is of ({@code calls - remaining <= ownUnits}). Then the limit's own rules
     * already hold at least as much as the count would, and it holds nothing: no other client used the quota, and a
     * vendor that rounds its reset up to whole seconds would otherwise stall a tight limit a whole second each time
     * its window is full. A count of 0 so explained (the gate itself filled the window) holds until the gate's own log
     * says the window's oldest unit leaves ({@link #ownLeave}), not until the vendor's reset, which vendors round up to
     * whole seconds: a tight limit would otherwise stall most of a second each time it fills its window (the receipt
     * margin covers a send that reaches the vendor late). The rule is the one of the vendor's stated quota (its
     * calls); where it states none, every rule the count could be of (calls of at least the remaining) must explain
     * it. A count no rule could be of explains nothing (and is not {@link #accepted}).
     *
     * @param ownUnits the units the gate logged in a rule's window as the gate counts it (widened by its receipt
     *                 margin: a send reaches the vendor up to that much after its grant; for an aligned rule, its
     *                 block, the margin before it included) ending now, up to the reporting call's last unit: units
     *                 granted after it may not have reached the vendor yet
     */
    public static boolean explained(int remaining, Integer quota, LimitRules rules, ToLongFunction<Pace> ownUnits) {
        List<Pace> candidates = rules.rules().stream()
                .filter(p -> p.calls() >= remaining && (quota == null || p.calls() == quota)).toList();
        return !candidates.isEmpty()
                && candidates.stream().allMatch(p -> p.calls() - remaining <= ownUnits.applyAsLong(p));
    }

    /**
     * When a count of 0 that the gate's own sends explain stops holding: when, by the gate's own log, the oldest unit
     * of the vendor's window leaves it in every rule the count could be of (the {@code calls}-th most recent unit up
     * to the reporting call's: its window after it, or its block's end, the receipt margin included). The vendor's
     * reset still bounds it ({@link #resetCap} too).
     *
     * @param rules     the rules as the cap counts them ({@link ReceiptMargin#widen}: margins included)
     * @param unitSent  when the unit of a number was sent (null: not in the log)
     */
    public static Instant ownLeave(Integer quota, LimitRules rules, long reportingUnit,
                                   java.util.function.LongFunction<Instant> unitSent) {
        Instant latest = null;
        for (Pace p : rules.rules()) {
            if (quota != null && p.calls() != quota) {
                continue;
            }
            Instant sent = unitSent.apply(reportingUnit - p.calls() + 1);
            if (sent == null) {
                continue;
            }
            Instant leaves = p.isAligned() ? p.blocks().at(sent.plus(p.margin())).end() : sent.plus(p.window());
            latest = latest == null || leaves.isAfter(latest) ? leaves : latest;
        }
        return latest;
    }

    /**
     * Whether a count reported on the call of a key under a parent is the parent's (the vendor's whole account, which
     * every key shares) rather than the key's own: its stated quota is one of the parent's rules (where the key has a
     * rule of the same calls too, the parent's: holding the parent holds the key as well, and the count is never
     * lost), or, with no quota stated, its remaining is more than any key's rule allows and no more than the
     * parent's largest.
     *
     * @param keyCalls    the calls of each of the key's rules
     * @param parentCalls the calls of each of the parent's rules
     */
    public static boolean ofParent(int remaining, Integer quota, List<Integer> keyCalls, List<Integer> parentCalls) {
        if (quota != null) {
            return parentCalls.contains(quota);
        }
        int keyMost = keyCalls.stream().mapToInt(Integer::intValue).max().orElse(0);
        int parentMost = parentCalls.stream().mapToInt(Integer::intValue).max().orElse(0);
        return remaining > keyMost && remaining <= parentMost;
    }

    /** Whether a reported remaining count can be this limit's: from 0 to the calls of its largest rule. */
    public static boolean accepted(int remaining, LimitRules rules) {
        return remaining >= 0 && remaining <= rules.rules().stream().mapToInt(Pace::calls).max().orElse(0);
    }

    /**
     * The longest a report may hold sends back: the limit's longest window (a day for a daily quota), and no longer
     * than the longest cool-down the limit takes from a Retry-After ({@code maxCoolDown}, an hour unless an operator
     * declared more): a count of 0 is a pause, and obeys a pause's cap.
     */
    public static Duration resetCap(LimitRules rules, Duration maxCoolDown) {
        Duration longest = rules.rules().stream().map(Pace::window).max(Duration::compareTo).orElseThrow();
        return longest.compareTo(maxCoolDown) < 0 ? longest : maxCoolDown;
    }
}
