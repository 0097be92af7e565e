package dev.gate.client;

import java.time.Duration;

/**
 * A call's options, as the EJB API's: its lease (renewed by the client while it waits), a deadline (refused at once
 * when the line says it cannot be met), a concurrency key, a dedupe key, and a keyed limit's key (the call joins that
 * key's own line). Null: not given.
 */
public record CallOptions(Duration lease, Duration deadline, String concurrencyKey, String dedupeKey,
                          String limitKey) {

    public static final CallOptions NONE = new CallOptions(null, null, null, null, null);

    public CallOptions withLease(Duration l) {
        return new CallOptions(l, deadline, concurrencyKey, dedupeKey, limitKey);
    }

    public CallOptions withDeadline(Duration d) {
        return new CallOptions(lease, d, concurrencyKey, dedupeKey, limitKey);
    }

    public CallOptions withConcurrencyKey(String key) {
        return new CallOptions(lease, deadline, key, dedupeKey, limitKey);
    }

    public CallOptions withDedupeKey(String key) {
        return new CallOptions(lease, deadline, concurrencyKey, key, limitKey);
    }

    /** The key of a keyed limit: required by a keyed limit, refused by any other. */
    public CallOptions withLimitKey(String key) {
        return new CallOptions(lease, deadline, concurrencyKey, dedupeKey, key);
    }
}
