package dev.gate.client;

import java.time.Duration;

/**
 * A call's options, as the EJB API's: its lease (renewed by the client while it waits), a deadline (refused at once
 * when the line says it cannot be met), a concurrency key, a dedupe key, a keyed limit's key (the call joins that
 * key's own line), and its cost in units of the quota (a call the vendor counts as several; at most the calls of the
 * limit's smallest rule). Null: not given.
 */
public record CallOptions(Duration lease, Duration deadline, String concurrencyKey, String dedupeKey,
                          String limitKey, Integer cost) {

    public static final CallOptions NONE = new CallOptions(null, null, null, null, null, null);

    public CallOptions withLease(Duration l) {
        return new CallOptions(l, deadline, concurrencyKey, dedupeKey, limitKey, cost);
    }

    public CallOptions withDeadline(Duration d) {
        return new CallOptions(lease, d, concurrencyKey, dedupeKey, limitKey, cost);
    }

    public CallOptions withConcurrencyKey(String key) {
        return new CallOptions(lease, deadline, key, dedupeKey, limitKey, cost);
    }

    public CallOptions withDedupeKey(String key) {
        return new CallOptions(lease, deadline, concurrencyKey, key, limitKey, cost);
    }

    /** The key of a keyed limit: required by a keyed limit, refused by any other. */
    public CallOptions withLimitKey(String key) {
        return new CallOptions(lease, deadline, concurrencyKey, dedupeKey, key, cost);
    }

    /**
     * Units of the quota the call takes (default 1): every window of the limit counts them and the beat spaces by them.
     * A cost above the limit's smallest rule is refused (400, naming {@code cost}).
     */
    public CallOptions withCost(int units) {
        return new CallOptions(lease, deadline, concurrencyKey, dedupeKey, limitKey, units);
    }
}
