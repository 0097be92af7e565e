package dev.gate.engine;

import dev.gate.api.CallOptions;
import dev.gate.api.GateException;
import dev.gate.api.InvalidRequestException;
import dev.gate.api.UnknownLimitException;
import dev.gate.rules.Cost;
import dev.gate.rules.LimitKey;
import dev.gate.store.CostCeilings;

/**
 * A call's cost, checked against its limit before it joins or tries: at most the calls of the limit's smallest rule
 * (a call that could never fit a window is refused, not queued forever), and at most {@link Cost#MOST} (a costlier
 * grant could not be written within the store's timeouts). A call of cost 1 is not checked: it costs no round trip.
 */
final class CallCosts {

    private final Admission admission;
    private final CostCeilings ceilings;

    CallCosts(Admission admission, CostCeilings ceilings) {
        this.admission = admission;
        this.ceilings = ceilings;
    }

    /** The cost of a call on {@code limit} ({@code parent}: a key's parent, else null), or a refusal naming the field. */
    Cost checked(String limit, String parent, CallOptions options) throws GateException {
        int units = options.cost();
        if (units == 1) {
            return Cost.ONE;
        }
        if (units < 1) {
            throw new InvalidRequestException("cost: a call costs at least 1 unit, was " + units);
        }
        if (units > Cost.MOST) {
            throw new InvalidRequestException("cost: must be 1 to " + Cost.MOST + " (the largest cost the gate takes: "
                    + "each unit is a send of the log, written with the grant), was " + units);
        }
        if (parent != null || LimitKey.isKeyName(limit) || options.limitKey() != null) {
            throw new InvalidRequestException("cost: a call on a keyed limit costs 1 unit (costlier calls are taken "
                    + "on limits without keys), was " + units);
        }
        int most = admission.run(() -> ceilings.mostOf(limit)).orElseThrow(() -> new UnknownLimitException(limit));
        if (units > most) {
            throw new InvalidRequestException("cost: must be 1 to " + most + " (the calls of limit " + limit
                    + "'s smallest rule: a costlier call could never fit its window), was " + units);
        }
        return Cost.of(units);
    }
}
