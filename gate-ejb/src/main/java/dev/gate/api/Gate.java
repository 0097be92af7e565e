package dev.gate.api;

import java.time.Duration;

/**
 * The gate's business interface, published in the EJB client jar ({@code gate-ejb-client.jar}).
 *
 * <p>Inject it into any deployment on the same server with
 * {@code @EJB(lookup = "java:global/gate/gate-ejb/GateBean!dev.gate.api.Gate") Gate gate;}.
 * Arguments and results cross by value.
 *
 * <pre>
 * Permit permit = gate.acquire("vendor-a", CallClass.SCHEDULED, Duration.ofSeconds(30));
 * int status = callTheVendor();
 * gate.complete(permit, status);
 * </pre>
 * A retry is a new {@code acquire}: it waits in the line like any other call, in the class the caller gives it.
 */
public interface Gate {

    /** The portable JNDI name of this view. */
    String JNDI_NAME = "java:global/gate/gate-ejb/GateBean!dev.gate.api.Gate";

    /**
     * Joins the line of {@code limit} in {@code callClass} and blocks until the call is granted.
     *
     * @throws GateTimeoutException  not granted within {@code maxWait}; the call has left the line
     * @throws UnknownLimitException no such limit
     * @throws CallEndedException    the call was cleared without a grant (lease expired, gate undeployed)
     */
    Permit acquire(String limit, CallClass callClass, Duration maxWait) throws GateException;

    /**
     * As {@link #acquire(String, CallClass, Duration)}, with the call's own lease (5 s to 300 s; default 30 s). While
     * the caller waits, this server renews the lease; if the server dies, the call is cleared within one lease.
     */
    Permit acquire(String limit, CallClass callClass, Duration maxWait, Duration lease) throws GateException;

    /**
     * As {@link #acquire(String, CallClass, Duration)}, with the call's options: its lease, a deadline (refused at
     * once with {@link DeadlineException} when the line says it cannot be met; EXPIRED if it passes while waiting),
     * and a concurrency key (one call per key granted and not yet done at a time).
     */
    Permit acquire(String limit, CallClass callClass, Duration maxWait, CallOptions options) throws GateException;

    /** Reports the vendor's HTTP status for a granted call; the call becomes DONE. */
    void complete(Permit permit, int vendorStatus) throws GateException;

    /**
     * Reports the vendor's answer with its Retry-After. A 429 (or a 503 with Retry-After) pauses the whole limit,
     * for every class and every program, for as long as the vendor asked (or the limit's floor), and climbs the
     * limit's cool-down ladder; successes step it back down. It is no failure of the call itself.
     */
    void complete(Permit permit, int vendorStatus, Duration retryAfter) throws GateException;

    /**
     * Reports the vendor's answer with whatever it said: its status, its Retry-After and its own count of the quota
     * ({@link Outcome#remaining()}, {@link Outcome#reset()}), which holds the limit's sends to what the vendor said
     * was left until its reset.
     */
    void complete(Permit permit, Outcome outcome) throws GateException;

    /**
     * Waits for the vendor's answer to a call, typically one this caller {@link Permit#joined() joined} by its dedupe
     * key: the first caller makes the vendor call and reports it; every joiner sees the same outcome.
     *
     * @throws GateTimeoutException no outcome within {@code maxWait}
     * @throws CallEndedException   the call ended without an outcome (cancelled, expired)
     */
    Outcome awaitOutcome(Permit permit, Duration maxWait) throws GateException;

    /**
     * Try now: a permit at once if a slot of {@code limit} is free at this moment and no call of this class or a higher
     * one waits in the line, else when to try again (the answer comes in one round trip to the database, and a
     * refusal leaves nothing in the line). A granted try is a grant like any other: report its outcome.
     *
     * @throws UnknownLimitException no such limit
     */
    Attempt tryAcquire(String limit, CallClass callClass) throws GateException;

    /** As {@link #tryAcquire(String, CallClass)}, with the call's lease (its only option for a try). */
    Attempt tryAcquire(String limit, CallClass callClass, CallOptions options) throws GateException;

    /**
     * Try now and consume, for an inbound limit (each user of a service allowed N requests a minute), where the call
     * is the request itself: granted and ended in the same statement (one round trip), by the same rules and into the
     * same send log as {@link #tryAcquire}, but DONE at once: no lease, and no outcome to report (the permit names the
     * consumed call; {@code complete} on it is refused). Not granted: when to try again, nothing left in the line.
     *
     * @throws UnknownLimitException no such limit
     */
    Attempt tryConsume(String limit, CallClass callClass) throws GateException;

    /** As {@link #tryConsume(String, CallClass)}, with the call's cost and a keyed limit's key (its options). */
    Attempt tryConsume(String limit, CallClass callClass, CallOptions options) throws GateException;

    /**
     * Gives a granted call up without a vendor call (the caller's own work failed before it reached the vendor): the
     * call becomes ABANDONED at once and its concurrency key is free, instead of both waiting out the lease. A joiner
     * waiting for its outcome is told it ended. Answers false when the call is not granted (done, or already ended),
     * and for a joiner's permit ({@link Permit#joined()}): the grant is the first caller's.
     */
    boolean abandon(Permit permit) throws GateException;
}
