package dev.gate.rules;

/**
 * What a call takes of its limit's quota, in units: 1, or more for a call the vendor counts as several (a bulk
 * endpoint "counts as 5", a query priced in points). Every rule's window counts units, and the beat spaces by them: a
 * call of cost 3 takes three gaps. A costly call keeps its place in the line: it waits at the head until its units
 * fit, and the cheaper calls behind it wait with it (no starvation of big calls).
 */
public record Cost(int units) {

    public static final Cost ONE = new Cost(1);

    /**
     * The largest cost the gate takes, whatever the rules: each unit is a row of the send log, written with the grant
     * in one statement under the store's statement timeout (10,000 take about 100 ms on an idle 2-core box, several
     * times that on a busy one; 1,000 about 15 ms). A costlier call would never commit its grant and would hold the
     * line behind it.
     */
    public static final int MOST = 1_000;

    public Cost {
        if (units < 1) {
            throw new IllegalArgumentException("a call costs at least 1 unit: " + units);
        }
    }

    public static Cost of(int units) {
        return units == 1 ? ONE : new Cost(units);
    }

    /**
     * With {@code sent} units logged (numbered 1..sent), the unit that must have left a rule's window of {@code calls}
     * before this call's units fit in it: its {@code (calls - units + 1)}-th most recent. A cost above the rule's
     * calls (an adaptive limit cut below it) waits for the window to be empty: the latest unit.
     */
    public long unitToLeave(long sent, int calls) {
        return sent - calls + Math.min(units, calls);
    }

    /** The beat's advance for this call: a gap per unit. */
    public java.time.Duration beat(java.time.Duration gap) {
        return gap.multipliedBy(units);
    }

    public boolean isOne() {
        return units == 1;
    }
}
