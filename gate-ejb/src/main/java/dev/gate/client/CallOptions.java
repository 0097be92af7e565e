package dev.gate.client;

import java.io.Serializable;
import java.time.Duration;

/**
 * A call's own options, all optional: its lease (5-300 s; default 30 s), a deadline after which it is never granted
 * (a person will not wait forever), and a concurrency key of which only one call at a time may be granted and not
 * yet done (one store, one source).
 */
public final class CallOptions implements Serializable {

    private static final long serialVersionUID = 1L;

    public static final CallOptions NONE = new CallOptions(null, null, null);

    private final Duration lease;
    private final Duration deadline;
    private final String concurrencyKey;

    private CallOptions(Duration lease, Duration deadline, String concurrencyKey) {
        this.lease = lease;
        this.deadline = deadline;
        this.concurrencyKey = concurrencyKey;
    }

    public CallOptions withLease(Duration lease) {
        return new CallOptions(lease, deadline, concurrencyKey);
    }

    /** Refused at once if the line and the rate say it cannot be granted in time; EXPIRED if the time passes. */
    public CallOptions withDeadline(Duration deadline) {
        return new CallOptions(lease, deadline, concurrencyKey);
    }

    public CallOptions withConcurrencyKey(String key) {
        if (key != null && (key.isEmpty() || key.length() > 200)) {
            throw new IllegalArgumentException("a concurrency key is 1 to 200 characters");
        }
        return new CallOptions(lease, deadline, key);
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
