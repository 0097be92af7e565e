package dev.gate.rules;

import java.time.Duration;
import java.util.Objects;

/**
 * Time a grant may take to reach its caller (commit, notification, an HTTP answer). The window cap counts each rule's
 * window widened by it, and the beat follows the widened window: then any limit+1 grants span more than the window
 * plus the margin, and counted by the time the callers received them (each receipt at most the margin after its
 * grant), no window holds more than the limit. It costs a share margin/window of the rate.
 *
 * <p>Default per rule: half a percent of its window, at most 100 ms (50 ms for 60 per 10 s: utilization 0.995).
 */
public final class ReceiptMargin {

    /** Most of the default margin, whatever the window. */
    public static final Duration MOST = Duration.ofMillis(100);

    /** The default margin's share of the window: 1/200, half a percent of the rate. */
    static final int SHARE_DIVISOR = 200;

    private static final ReceiptMargin DEFAULT = new ReceiptMargin(null);

    private final Duration declared;

    private ReceiptMargin(Duration declared) {
        if (declared != null && declared.isNegative()) {
            throw new IllegalArgumentException("receiptMargin must not be negative: " + declared);
        }
        this.declared = declared;
    }

    /** The default for every rule (see the class note). */
    public static ReceiptMargin byDefault() {
        return DEFAULT;
    }

    /** One margin for every rule of the limit, as its operator declared it (zero: none). */
    public static ReceiptMargin of(Duration margin) {
        return new ReceiptMargin(Objects.requireNonNull(margin, "margin"));
    }

    /** {@link #of} when declared, else {@link #byDefault()}. */
    public static ReceiptMargin ofNullable(Duration declared) {
        return declared == null ? DEFAULT : of(declared);
    }

    /** The operator's margin; null when the default applies. */
    public Duration declared() {
        return declared;
    }

    /** The margin for a rule of this window. */
    public Duration forWindow(Duration window) {
        if (declared != null) {
            return declared;
        }
        Duration share = window.dividedBy(SHARE_DIVISOR);
        return share.compareTo(MOST) < 0 ? share : MOST;
    }

    /** The rules as the cap and the beat count them: every window widened by its margin. */
    public LimitRules widen(LimitRules rules) {
        return new LimitRules(rules.rules().stream()
                .map(p -> p.isAligned() ? new Pace(p.calls(), p.window(), p.blocks(), forWindow(p.window()))
                        : new Pace(p.calls(), p.window().plus(forWindow(p.window())))).toList(), rules.minInterval(),
                rules.burst());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReceiptMargin m && Objects.equals(declared, m.declared);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(declared);
    }

    @Override
    public String toString() {
        return declared == null ? "default" : declared.toString();
    }
}
