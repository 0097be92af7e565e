package dev.gate.api;

import java.io.Serializable;
import java.time.Duration;

/**
 * A call's own options, all optional: its lease (5-300 s; default 30 s), a deadline after which it is never granted
 * (a person will not wait forever), a concurrency key of which only one call at a time may be granted and not yet
 * done (one store, one source), a dedupe key that makes equal submissions share one send, and the key of a keyed
 * limit (whose line the call joins).
 */
public final class CallOptions implements Serializable {

    private static final long serialVersionUID = 1L;

    public static final CallOptions NONE = new CallOptions(null, null, null, null, null);

    private final Duration lease;
    private final Duration deadline;
    private final String concurrencyKey;
    private final String dedupeKey;
    private final String limitKey;

    private CallOptions(Duration lease, Duration deadline, String concurrencyKey, String dedupeKey, String limitKey) {
        this.lease = lease;
        this.deadline = deadline;
        this.concurrencyKey = concurrencyKey;
        this.dedupeKey = dedupeKey;
        this.limitKey = limitKey;
    }

    public CallOptions withLease(Duration lease) {
        return new CallOptions(lease, deadline, concurrencyKey, dedupeKey, limitKey);
    }

    /** Refused at once if the line and the rate say it cannot be granted in time; EXPIRED if the time passes. */
    public CallOptions withDeadline(Duration deadline) {
        return new CallOptions(lease, deadline, concurrencyKey, dedupeKey, limitKey);
    }

    public CallOptions withConcurrencyKey(String key) {
        return new CallOptions(lease, deadline, checkedKey(key), dedupeKey, limitKey);
    }

    /**
     * Fetch once: while a call of the limit with this key waits or is granted, this submission joins it instead of
     * adding a send; the permit then says {@link Permit#joined()} and the outcome comes from the first caller.
     */
    public CallOptions withDedupeKey(String key) {
        return new CallOptions(lease, deadline, concurrencyKey, checkedKey(key), limitKey);
    }

    /**
     * The key of a keyed limit (a user, a tenant, a store: 1-200 characters): the call waits in that key's own line,
     * under the limit's rules for each key. Required by a keyed limit, refused by any other.
     */
    public CallOptions withLimitKey(String key) {
        return new CallOptions(lease, deadline, concurrencyKey, dedupeKey, checkedKey(key));
    }

    public String limitKey() {
        return limitKey;
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
