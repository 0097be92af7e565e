package dev.gate.api;

import java.io.Serializable;
import java.time.Duration;

/**
 * A call's own options, all optional: its lease (5-300 s; default 30 s), a deadline after which it is never granted
 * (a person will not wait forever), a concurrency key of which only one call at a time may be granted and not yet
 * done (one store, one source), a dedupe key that makes equal submissions share one send, the key of a keyed
 * limit (whose line the call joins), and its cost in units of the quota (default 1).
 */
public final class CallOptions implements Serializable {

    private static final long serialVersionUID = 1L;

    public static final CallOptions NONE = new CallOptions(null, null, null, null, null, 1);

    private final Duration lease;
    private final Duration deadline;
    private final String concurrencyKey;
    private final String dedupeKey;
    private final String limitKey;
    private final int cost;

    private CallOptions(Duration lease, Duration deadline, String concurrencyKey, String dedupeKey, String limitKey,
                        int cost) {
        this.lease = lease;
        this.deadline = deadline;
        this.concurrencyKey = concurrencyKey;
        this.dedupeKey = dedupeKey;
        this.limitKey = limitKey;
        this.cost = cost;
    }

    public CallOptions withLease(Duration lease) {
        return new CallOptions(lease, deadline, concurrencyKey, dedupeKey, limitKey, cost);
    }

    /** Refused at once if the line and the rate say it cannot be granted in time; EXPIRED if the time passes. */
    public CallOptions withDeadline(Duration deadline) {
        return new CallOptions(lease, deadline, concurrencyKey, dedupeKey, limitKey, cost);
    }

    public CallOptions withConcurrencyKey(String key) {
        return new CallOptions(lease, deadline, checkedKey(key), dedupeKey, limitKey, cost);
    }

    /**
     * Fetch once: while a call of the limit with this key waits or is granted, this submission joins it instead of
     * adding a send; the permit then says {@link Permit#joined()} and the outcome comes from the first caller.
     */
    public CallOptions withDedupeKey(String key) {
        return new CallOptions(lease, deadline, concurrencyKey, checkedKey(key), limitKey, cost);
    }

    /**
     * The key of a keyed limit (a user, a tenant, a store: 1-200 characters): the call waits in that key's own line,
     * under the limit's rules for each key. Required by a keyed limit, refused by any other.
     */
    public CallOptions withLimitKey(String key) {
        return new CallOptions(lease, deadline, concurrencyKey, dedupeKey, checkedKey(key), cost);
    }

    public String limitKey() {
        return limitKey;
    }

    /**
     * What the call takes of the quota, in units (default 1): a call the vendor counts as several (a bulk endpoint
     * that "counts as 5", a query priced in points). At most the calls of the limit's smallest rule (else the call is
     * refused, naming {@code cost}); every window counts units and the beat spaces by them. A costly call keeps its
     * place: it waits at the head of its class until its units fit, and cheaper calls behind it wait too.
     */
    public CallOptions withCost(int units) {
        if (units < 1) {
            throw new IllegalArgumentException("cost: a call costs at least 1 unit, was " + units);
        }
        return new CallOptions(lease, deadline, concurrencyKey, dedupeKey, limitKey, units);
    }

    public int cost() {
        return cost;
    }

    private static String checkedKey(String key) {
        if (key != null && (key.isEmpty() || key.length() > 200)) {
            throw new IllegalArgumentException("a key is 1 to 200 characters");
        }
        return key;
    }

    public String dedupeKey() {
        return dedupeKey;
    }

    public Duration lease() {
        return lease;
    }

    public Duration deadline() {
        return deadline;
    }

    public String concurrencyKey() {
        return concurrencyKey;
    }
}
